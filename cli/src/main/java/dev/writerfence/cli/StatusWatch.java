package dev.writerfence.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code status --watch}: prints a block every interval until stopped. On a terminal each block
 * replaces the last (the screen cleared with ANSI codes, the cursor sent home); otherwise, when the
 * output goes to a file or a pipe, the blocks follow each other, each under a heading line, so that
 * nothing is written that a file would keep as garbage.
 *
 * <p>Ctrl-C stops it between two blocks: a shutdown hook interrupts the wait and lets the block
 * being printed end (at most {@link #STOP_GRACE}), so the terminal is left with a whole block and
 * the prompt on a line of its own.
 */
final class StatusWatch {
  /** The interval of {@code --watch} without a value, in seconds. */
  static final double DEFAULT_SECONDS = 2;

  /** The shortest and longest interval allowed, in seconds. */
  static final double MIN_SECONDS = 0.1;

  static final double MAX_SECONDS = 3600;

  /** ANSI: cursor home, then erase the whole screen. */
  static final String CLEAR = "\033[H\033[2J";

  /** How long Ctrl-C waits for the block being printed. */
  static final Duration STOP_GRACE = Duration.ofSeconds(2);

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  /** One refresh: prints one block. */
  interface Block {
    /**
     * @param out where to print it
     * @throws Exception when the block could not be read; the watch reports it and goes on
     */
    void print(PrintWriter out) throws Exception;
  }

  private final Duration interval;
  private final long count;
  private final boolean terminal;
  private final boolean bare;

  /**
   * @param seconds the interval between two blocks, {@value #MIN_SECONDS} to {@value #MAX_SECONDS}
   * @param count how many blocks before it stops by itself; 0 for no end
   * @param terminal whether the output is a terminal, to clear between blocks
   * @param bare whether blocks follow each other with no heading and no blank line (one JSON object
   *     per line); never cleared
   * @throws IllegalArgumentException when {@code seconds} or {@code count} is out of range, naming
   *     the value and the range
   */
  StatusWatch(double seconds, long count, boolean terminal, boolean bare) {
    if (!(seconds >= MIN_SECONDS && seconds <= MAX_SECONDS)) {
      throw new IllegalArgumentException(
          "--watch "
              + seconds
              + " is not allowed: seconds between refreshes, "
              + MIN_SECONDS
              + " to "
              + (long) MAX_SECONDS);
    }
    if (count < 0) {
      throw new IllegalArgumentException(
          "--count " + count + " is not allowed: 0 (no end) or more refreshes");
    }
    this.interval = Duration.ofNanos((long) (seconds * 1e9));
    this.count = count;
    this.terminal = terminal && !bare;
    this.bare = bare;
  }

  /**
   * @return whether standard output is an interactive terminal: a console exists and, on a JDK that
   *     can tell (22 and later, {@code Console.isTerminal()}), is one
   */
  static boolean stdoutIsTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (ReflectiveOperationException e) {
      return true; // before JDK 22 a console exists only on a terminal
    }
  }

  /**
   * Prints blocks until {@code count} were printed, the thread is interrupted, or the JVM stops.
   *
   * @param out where the blocks go
   * @param err where a block that failed is reported
   * @param block prints one block
   * @return 0, or 1 when the last block failed and the watch was not stopped (interrupted)
   */
  int run(PrintWriter out, PrintWriter err, Block block) {
    Thread watching = Thread.currentThread();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              watching.interrupt();
              try {
                stopped.await(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "writer-fence-status-watch-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean failed = false;
    try {
      for (long n = 1; count == 0 || n <= count; n++) {
        if (!bare) {
          out.print(terminal ? CLEAR : n == 1 ? "" : System.lineSeparator());
          out.println(heading(n));
        }
        try {
          block.print(out);
          failed = false;
        } catch (Exception e) {
          failed = true;
          err.println(
              "writer-fence status: "
                  + WriterFenceCli.describe(e)
                  + "; trying again in "
                  + seconds());
          err.flush();
        }
        out.flush();
        if (Thread.currentThread().isInterrupted()) {
          failed = false; // stopped while reading: no failure of the database's
          break;
        }
        if (count != 0 && n == count) {
          break;
        }
        try {
          Thread.sleep(interval.toMillis(), interval.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
          failed = false; // Ctrl-C
          break;
        }
      }
    } finally {
      out.flush();
      stopped.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is stopping (Ctrl-C): the hook is running and ends now
      }
    }
    return failed ? 1 : 0;
  }

  private String heading(long n) {
    return "writer-fence status at "
        + TIME.format(Instant.now())
        + ", every "
        + seconds()
        + (terminal ? " (Ctrl-C stops)" : " (refresh " + n + ")");
  }

  private String seconds() {
    double s = interval.toNanos() / 1e9;
    return (s == Math.rint(s) ? Long.toString((long) s) : String.format(Locale.ROOT, "%.1f", s))
        + " s";
  }
}
