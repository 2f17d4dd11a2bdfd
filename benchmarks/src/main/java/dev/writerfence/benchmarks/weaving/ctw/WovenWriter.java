package dev.writerfence.benchmarks.weaving.ctw;

import dev.writerfence.annotation.WriterFenced;

/** A writer woven at compile time by ajc with writer-fence-aspectj's aspect (see the pom). */
public class WovenWriter {
  /**
   * @param value any number
   * @return {@code value + 1}, computed under the fence {@code weaving}
   */
  @WriterFenced(value = "weaving", holder = "bench")
  public int write(int value) {
    return value + 1;
  }
}
