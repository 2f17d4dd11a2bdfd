package dev.writerfence.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A loaded machine on demand, for tests whose promise must hold under load (fairness, no busy
 * give-ups): a JVM of its own whose threads spin on arithmetic until it is closed, each adding
 * about one to the load average. It is its own process, so the scheduler treats it like any other
 * program competing for the cores.
 *
 * <pre>{@code
 * try (CpuLoad load = CpuLoad.start(5)) {
 *   // the run under test, beside five busy threads
 * }
 * }</pre>
 */
public final class CpuLoad implements AutoCloseable {
  private final ForkedJvm jvm;
  private final int threads;

  private CpuLoad(ForkedJvm jvm, int threads) {
    this.jvm = jvm;
    this.threads = threads;
  }

  /**
   * Starts the spinning threads and returns once they spin.
   *
   * @param threads how many, from 1 to 64
   * @return the running load; close it to end it
   * @throws IllegalArgumentException when {@code threads} is outside 1 to 64
   */
  public static CpuLoad start(int threads) {
    if (threads < 1 || threads > 64) {
      throw new IllegalArgumentException("threads " + threads + " is not allowed: 1 to 64");
    }
    ForkedJvm jvm =
        ForkedJvm.start(
            List.of("-XX:+UseSerialGC", "-Xmx32m"), CpuLoad.class, String.valueOf(threads));
    try {
      jvm.awaitLine("spinning", Duration.ofSeconds(30));
    } catch (AssertionError e) {
      jvm.close();
      throw e;
    }
    return new CpuLoad(jvm, threads);
  }

  /**
   * @return how many threads spin
   */
  public int threads() {
    return threads;
  }

  /**
   * @return the process id of the spinning JVM
   */
  public long pid() {
    return jvm.pid();
  }

  /** Ends the process and its threads. */
  @Override
  public void close() {
    jvm.close();
  }

  /**
   * The forked side: spins {@code args[0]} threads, prints {@code spinning}, and ends when its
   * standard input closes or says {@code stop}.
   *
   * @param args the thread count
   * @throws IOException when standard input cannot be read
   */
  public static void main(String[] args) throws IOException {
    int threads = Integer.parseInt(args[0]);
    for (int i = 0; i < threads; i++) {
      Thread spinner = new Thread(CpuLoad::spin, "cpu-load-" + i);
      spinner.setDaemon(true);
      spinner.start();
    }
    System.out.println("spinning");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    do {
      line = in.readLine();
    } while (line != null && !line.equals("stop"));
    System.exit(0);
  }

  private static void spin() {
    long x = System.nanoTime();
    while (true) {
      // xorshift: work the JIT cannot drop, no allocation, no memory traffic
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      if (x == 42) {
        System.out.print("");
      }
    }
  }
}
