package com.acme.legacy;

/** The smallest application: start-up cost is measured on it, with and without the agent. */
public final class HelloApp {
  private HelloApp() {}

  /**
   * @param args ignored
   */
  public static void main(String[] args) {
    System.out.println("hello");
  }

  /** Named in {@code fence.methods} by the measurement, never called: matching costs, not JDBC. */
  static void upload() {
    System.out.println("upload");
  }
}
