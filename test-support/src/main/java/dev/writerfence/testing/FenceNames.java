package dev.writerfence.testing;

import java.util.UUID;

/**
 * Fence names for tests: a fresh random one per test, so a test never meets another test's lease
 * nor a long-lived holder of a production name such as {@code corpus}.
 */
public final class FenceNames {
  private FenceNames() {}

  /**
   * @param prefix what the name is for, such as the test's name
   * @return {@code prefix-<random>}, a name no one has used before
   */
  public static String random(String prefix) {
    String head = prefix.length() > 60 ? prefix.substring(0, 60) : prefix;
    return head + "-" + UUID.randomUUID();
  }
}
