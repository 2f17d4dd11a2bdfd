package dev.writerfence.benchmarks.queue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.retry.BusyRetryPolicy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One contender of {@link FairQueueRun}: a writer process of its own with a {@link WriterFence} on
 * a small HikariCP pool, defaults everywhere. Arguments: direct JDBC URL, JDBC URL through
 * PgBouncer (or {@code -}), fence name, output directory, contender number. It prints {@code
 * ready}; then, one command a line on standard input:
 *
 * <ul>
 *   <li>{@code run ROUTE SECTION_MICROS START_NANOS END_NANOS}: from {@code START_NANOS} to {@code
 *       END_NANOS} ({@link System#nanoTime()}, which on Linux reads the one {@code CLOCK_MONOTONIC}
 *       every process shares) calls {@code WriterFence.run} with the default busy retry again and
 *       again, each section sleeping {@code SECTION_MICROS}; then writes its sections to {@code
 *       ROUTE-ID.tsv} in the output directory (token, entry, exit, time to win, in nanoseconds) and
 *       prints {@code done WINS BUSY UNAVAILABLE MODE}, {@code MODE} being how its queued writers
 *       were woken by then ({@link WriterFence#queueWakeUp()}: {@code notified}, {@code polled},
 *       {@code pending}). {@code ROUTE} is {@code direct} or {@code bouncer}.
 *   <li>{@code wait}: one call whose retry budget is 10 minutes (an idle waiter while another holds
 *       the fence), then {@code won MODE ENTRY_NANOS} (its section's entry by {@link
 *       System#nanoTime()}).
 *   <li>{@code quit}: closes the fences and ends.
 * </ul>
 */
public final class QueueContender {
  /** Connections of each contender's pool: the acquire and the renewal, as a small service has. */
  static final int POOL = 2;

  /** The attempts of a {@code wait} where the backoff schedule bounds it (no queue). */
  static final int IDLE_ATTEMPTS = 100_000;

  /** The budget of a {@code wait}: longer than any idle measurement. */
  static final Duration IDLE_BUDGET = Duration.ofMinutes(10);

  private QueueContender() {}

  /**
   * @param args see the class comment
   * @throws Exception whatever stops it; it exits non-zero then
   */
  public static void main(String[] args) throws Exception {
    String fenceName = args[2];
    Path out = Path.of(args[3]);
    String id = args[4];
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (HikariDataSource direct = pool(args[0], id);
        HikariDataSource bouncer = "-".equals(args[1]) ? null : pool(args[1], id)) {
      WriterFence directFence = WriterFence.builder(direct).defaultHolderLabel("c" + id).build();
      WriterFence bouncerFence =
          bouncer == null
              ? null
              : WriterFence.builder(bouncer).defaultHolderLabel("c" + id).build();
      directFence.status(fenceName); // connects and loads everything before "ready"
      if (bouncerFence != null) {
        bouncerFence.status(fenceName);
      }
      say("ready");
      String line;
      while ((line = in.readLine()) != null && !line.equals("quit")) {
        String[] cmd = line.split(" ");
        switch (cmd[0]) {
          case "run" -> {
            WriterFence fence = "bouncer".equals(cmd[1]) ? bouncerFence : directFence;
            Tally tally =
                contend(
                    fence,
                    fenceName,
                    Long.parseLong(cmd[2]) * 1000,
                    Long.parseLong(cmd[3]),
                    Long.parseLong(cmd[4]));
            tally.write(out.resolve(cmd[1] + "-" + id + ".tsv"));
            say(
                "done "
                    + tally.sections.size()
                    + " "
                    + tally.busy
                    + " "
                    + tally.unavailable
                    + " "
                    + fence.queueWakeUp());
          }
          case "wait" -> {
            FenceRequest request =
                FenceRequest.builder(fenceName)
                    .retryPolicy(
                        BusyRetryPolicy.defaults()
                            .withMaxAttempts(IDLE_ATTEMPTS)
                            .withMaxWait(IDLE_BUDGET))
                    .build();
            long[] entry = new long[1];
            directFence.run(request, () -> entry[0] = System.nanoTime());
            say("won " + directFence.queueWakeUp() + " " + entry[0]);
          }
          default -> throw new IllegalArgumentException("unknown command '" + line + "'");
        }
      }
      directFence.close();
      if (bouncerFence != null) {
        bouncerFence.close();
      }
    }
    System.exit(0);
  }

  /** The sections and outcomes of one {@code run}. */
  private static final class Tally {
    final List<long[]> sections = new ArrayList<>();
    long busy;
    long unavailable;

    void write(Path file) throws IOException {
      try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
        for (long[] s : sections) {
          w.println(s[0] + "\t" + s[1] + "\t" + s[2] + "\t" + s[3]);
        }
      }
    }
  }

  private static Tally contend(
      WriterFence fence, String fenceName, long sectionNanos, long start, long end) {
    Tally tally = new Tally();
    FenceRequest request = FenceRequest.of(fenceName);
    while (System.nanoTime() < start) {
      LockSupport.parkNanos(Math.min(1_000_000, start - System.nanoTime()));
    }
    while (System.nanoTime() < end) {
      long called = System.nanoTime();
      long[] section = new long[4];
      try {
        fence.run(
            request,
            () -> {
              section[1] = System.nanoTime();
              section[0] = WriterFence.current(fenceName).orElseThrow().fencingToken();
              if (sectionNanos > 0) {
                LockSupport.parkNanos(sectionNanos);
              }
              section[2] = System.nanoTime();
            });
        section[3] = section[1] - called;
        tally.sections.add(section);
      } catch (WriterFenceBusyException e) {
        tally.busy++;
      } catch (RuntimeException e) {
        tally.unavailable++; // fail closed: counted, and the contender goes on
        LockSupport.parkNanos(25_000_000);
      }
    }
    return tally;
  }

  private static HikariDataSource pool(String url, String id) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("contender-" + id);
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(POOL);
    config.setMinimumIdle(POOL);
    config.setAutoCommit(true);
    config.setConnectionTimeout(30_000);
    return new HikariDataSource(config);
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
