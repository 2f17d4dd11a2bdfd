package dev.writerfence.internal.weaving;

import dev.writerfence.retry.BusyRetryPolicy;
import java.util.Objects;

/**
 * Internal: the part of a fence the weaving modes reach, and nothing else. {@code WriterFence}
 * extends it, handing its flow in at construction, so the weaving entry ({@link FencedCalls},
 * {@link FencedMethods}) runs a fenced call through that flow without a public method on the user
 * API and without naming {@code WriterFence}: every import between the two runs one way, from the
 * fence down to this package.
 *
 * <p>Applications never use this type; it may change in any release.
 */
public abstract class WeavableFence {
  /** The flow that runs this fence's calls; read by the weaving entry in this package only. */
  final FencedCalls.Core core;

  /**
   * @param core the fence's flow; never {@code null}
   */
  protected WeavableFence(FencedCalls.Core core) {
    this.core = Objects.requireNonNull(core, "core");
  }

  /**
   * @return the busy retry policy of calls that name none; never {@code null}
   */
  public abstract BusyRetryPolicy defaultRetryPolicy();
}
