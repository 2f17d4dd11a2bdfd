package dev.writerfence.aspectj.ltw;

import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;

/**
 * A fenced writer that ajc never sees: javac compiles it and this module's ajc test-compile
 * excludes {@code **}{@code /ltw/**}, so only the weaver agent can advise it.
 */
public class LtwWriter {
  int bodyRuns;
  long lastAdviceFrames;
  boolean lastHeld;

  /**
   * @param bucket the bucket id; the fence name is {@code "corpus:" + bucket}
   */
  @WriterFenced(value = "corpus:{0}", holder = "ltw-writer")
  public void write(String bucket) {
    bodyRuns++;
    lastHeld = WriterFence.current("corpus:" + bucket).isPresent();
    // The same count as Observation.inside, repeated on purpose: the load-time fixture stays
    // standalone, using no class of the test sources that ajc compiles and weaves.
    lastAdviceFrames =
        StackWalker.getInstance()
            .walk(
                s ->
                    s.filter(
                            f ->
                                f.getClassName()
                                        .equals("dev.writerfence.internal.weaving.FencedMethods")
                                    && f.getMethodName().equals("proceed"))
                        .count());
  }
}
