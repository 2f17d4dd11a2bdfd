package dev.writerfence.testing.weaving;

import dev.writerfence.annotation.WriterFenced;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A writer fenced by annotations on its methods: the fence name is the first argument. The weaving
 * mode under test fences it; the expectations pass the body that runs inside the method.
 */
public class MethodFencedWriter {
  /** The holder label of every lease the writers of this package take. */
  public static final String HOLDER = "weaving-contract";

  /** Creates the writer; a container may proxy it. */
  public MethodFencedWriter() {}

  /**
   * Runs {@code body} under the fence {@code fenceName}.
   *
   * @param fenceName the fence name; {@code null} or an invalid name fails before any acquire
   * @param body what runs inside the method
   */
  @WriterFenced(value = "{0}", holder = HOLDER)
  public void write(String fenceName, Runnable body) {
    body.run();
  }

  /**
   * Starts {@code body} under the fence {@code fenceName}; the lease is kept until the stage it
   * returns completes.
   *
   * @param fenceName the fence name
   * @param body starts the work and returns its stage
   * @return the stage the advice hands back (it completes after the release)
   */
  @WriterFenced(value = "{0}", holder = HOLDER)
  public CompletionStage<String> writeAsync(
      String fenceName, Supplier<CompletionStage<String>> body) {
    return body.get();
  }
}
