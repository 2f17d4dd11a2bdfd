package com.example.fenced.unwoven;

import dev.writerfence.annotation.WriterFenced;

/** Its annotation breaks a rule (negative TTL): the agent must fail its calls, never run it. */
public class BrokenWriter {
  /** How often the body ran. */
  public int bodyRuns;

  /** Creates the writer. */
  public BrokenWriter() {}

  /** A write whose fence cannot be built. */
  @WriterFenced(value = "broken", ttlSeconds = -5)
  public void write() {
    bodyRuns++;
  }
}
