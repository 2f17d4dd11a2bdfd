package dev.writerfence.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what is logged while it is open: slf4j-simple, the tests' SLF4J binding, writes each
 * line to whatever {@code System.err} is at that moment, so this swaps in a stream that keeps a
 * copy and still passes everything on. Not for tests that run in parallel.
 *
 * <pre>{@code
 * try (LogCapture log = LogCapture.start()) {
 *   ...;
 *   assertThat(log.text()).contains("ERROR");
 * }
 * }</pre>
 */
public final class LogCapture implements AutoCloseable {
  private final PrintStream original;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

  private LogCapture() {
    this.original = System.err;
    OutputStream tee =
        new OutputStream() {
          @Override
          public void write(int b) {
            original.write(b);
            synchronized (copy) {
              copy.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            synchronized (copy) {
              copy.write(b, off, len);
            }
          }
        };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /**
   * @return a capture, started
   */
  public static LogCapture start() {
    return new LogCapture();
  }

  /**
   * @return everything written to {@code System.err} since the start
   */
  public String text() {
    synchronized (copy) {
      return copy.toString(StandardCharsets.UTF_8);
    }
  }

  /** Puts the original {@code System.err} back. */
  @Override
  public void close() {
    System.setErr(original);
  }
}
