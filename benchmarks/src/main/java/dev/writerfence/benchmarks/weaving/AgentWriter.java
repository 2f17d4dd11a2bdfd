package dev.writerfence.benchmarks.weaving;

import dev.writerfence.annotation.WriterFenced;

/**
 * The writer for the agent's row: annotated, woven by nothing at build time, so in a JVM started
 * with the writer-fence agent it is fenced by the agent's inlined advice alone.
 */
public class AgentWriter {
  /**
   * @param value any number
   * @return {@code value + 1}
   */
  @WriterFenced(value = "weaving", holder = "bench")
  public int write(int value) {
    return value + 1;
  }
}
