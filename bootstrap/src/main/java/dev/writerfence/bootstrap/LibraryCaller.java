package dev.writerfence.bootstrap;

import java.util.Optional;

/**
 * Tells a storage client's own internal call from the application's, for advice on reactive
 * clients: there a public operation ({@code upload}) returns a lazy publisher that calls another
 * public operation ({@code uploadWithResponse}) only when it is subscribed to, after the first has
 * returned, so the gate's per-thread nesting cannot join them into one logical write.
 */
public final class LibraryCaller {
  private static final StackWalker WALKER = StackWalker.getInstance();

  private LibraryCaller() {}

  /**
   * Costs a short stack walk; call it on write operations only.
   *
   * @param first a package prefix of the library, with its trailing dot
   * @param second another prefix (for example the reactive library's), with its trailing dot
   * @return {@code true} when the method whose advice calls this was called from a class under
   *     either prefix
   */
  public static boolean calledFrom(String first, String second) {
    // Frame 0 is this method, 1 the advised method (the advice is inlined), 2 its caller.
    Optional<String> caller =
        WALKER.walk(frames -> frames.skip(2).findFirst().map(StackWalker.StackFrame::getClassName));
    return caller.isPresent()
        && (caller.get().startsWith(first) || caller.get().startsWith(second));
  }
}
