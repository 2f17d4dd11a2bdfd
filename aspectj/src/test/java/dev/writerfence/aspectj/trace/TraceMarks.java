package dev.writerfence.aspectj.trace;

/** Where the counted call begins and ends; the debugger stops at the entry of each. */
public final class TraceMarks {
  private TraceMarks() {}

  /** Entered right before the counted call. */
  public static void begin() {}

  /** Entered right after the counted call. */
  public static void end() {}
}
