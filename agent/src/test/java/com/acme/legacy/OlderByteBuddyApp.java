package com.acme.legacy;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * A legacy application that uses Byte Buddy itself, with an older byte-buddy jar on its class path
 * than the one shaded into the agent. It runs {@link CompatApp} after making a class with its own
 * Byte Buddy.
 */
public final class OlderByteBuddyApp {
  private OlderByteBuddyApp() {}

  /**
   * @param args passed to {@link CompatApp#main}
   * @throws Exception when the class cannot be made or the application fails
   */
  public static void main(String[] args) throws Exception {
    Class<?> made =
        new ByteBuddy()
            .subclass(Object.class)
            .method(ElementMatchers.named("toString"))
            .intercept(FixedValue.value("made by the application's byte-buddy"))
            .make()
            .load(OlderByteBuddyApp.class.getClassLoader())
            .getLoaded();
    System.out.println("made " + made.getDeclaredConstructor().newInstance());
    System.out.println(
        "app-byte-buddy " + ByteBuddy.class.getProtectionDomain().getCodeSource().getLocation());
    CompatApp.main(args);
  }
}
