package dev.writerfence.testing.weaving;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the JVM's standard error received since {@link #install()}, for expectations whose proof is
 * a line a mode writes there (the agent's refusal of a class). Everything still reaches the real
 * standard error.
 */
final class StandardError {
  private static final ByteArrayOutputStream SEEN = new ByteArrayOutputStream();
  private static volatile boolean installed;

  private StandardError() {}

  /** Copies standard error from now on; the forked JVM of an expectation calls it first. */
  static synchronized void install() {
    if (installed) {
      return;
    }
    PrintStream real = System.err;
    OutputStream tee =
        new OutputStream() {
          @Override
          public void write(int b) {
            synchronized (SEEN) {
              SEEN.write(b);
            }
            real.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            synchronized (SEEN) {
              SEEN.write(b, off, len);
            }
            real.write(b, off, len);
          }

          @Override
          public void flush() {
            real.flush();
          }
        };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    installed = true;
  }

  /**
   * @return what standard error received since {@link #install()}; empty when it was not installed
   */
  static String text() {
    synchronized (SEEN) {
      return SEEN.toString(StandardCharsets.UTF_8);
    }
  }
}
