package dev.writerfence.aspectj;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import java.util.Optional;

/**
 * What a fenced method body saw of its fence.
 *
 * @param lease the lease the running thread holds on the fence name, if any
 * @param adviceFrames how many times the advice is on the stack (1 when the advice ran once)
 */
record Observation(Optional<FenceLease> lease, long adviceFrames) {

  /**
   * @param fenceName the fence name the body expects to hold
   * @return what the calling body sees now
   */
  static Observation inside(String fenceName) {
    long frames =
        StackWalker.getInstance()
            .walk(
                s ->
                    s.filter(
                            f ->
                                f.getClassName()
                                        .equals("dev.writerfence.internal.weaving.FencedMethods")
                                    && f.getMethodName().equals("proceed"))
                        .count());
    return new Observation(WriterFence.current(fenceName), frames);
  }
}
