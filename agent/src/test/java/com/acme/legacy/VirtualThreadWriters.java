package com.acme.legacy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many virtual threads calling one method that the agent fences by {@code fence.methods} ({@code
 * write}, fence {@code PREFIX:{0}}), on a few fence names at once. The application has its own copy
 * of core, whose {@code WriterFence.current} gives each call the lease the agent took, and its own
 * HikariCP pool (whatever version is on its class path, configured by {@code
 * -Dhikaricp.configurationFile}).
 *
 * <p>Arguments: fence name prefix, fence names, calls, milliseconds each call sleeps inside the
 * fence. Prints {@code ready}, waits for {@code go} on standard input, then one {@code section NAME
 * TOKEN ENTER_NANOS EXIT_NANOS} line per call that ran, {@code failed CLASS MESSAGE} per call that
 * did not, and {@code outcomes ran=R busy=B unavailable=U other=O no-lease=N wall-ms=W} last.
 * Compiled for Java 17: the virtual-thread executor is found by reflection (Java 21 and later).
 */
public final class VirtualThreadWriters {
  private static final List<String> SECTIONS = new CopyOnWriteArrayList<>();
  private static final AtomicInteger NO_LEASE = new AtomicInteger();
  private static String prefix;
  private static long sectionMillis;

  private VirtualThreadWriters() {}

  /**
   * @param args prefix, names, calls, section milliseconds
   * @throws Exception when the executor or the application's pool cannot be made
   */
  public static void main(String[] args) throws Exception {
    prefix = args[0];
    int names = Integer.parseInt(args[1]);
    int calls = Integer.parseInt(args[2]);
    sectionMillis = Long.parseLong(args[3]);
    try (HikariDataSource own = new HikariDataSource(new HikariConfig())) {
      System.out.println("app-pool " + own.getPoolName() + " " + select(own));
      System.out.println("ready");
      if (!"go"
          .equals(
              new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine())) {
        return;
      }
      Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
      List<String> failures = new CopyOnWriteArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService threads =
          (ExecutorService)
              Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
      for (int i = 0; i < calls; i++) {
        String key = String.valueOf(i % names);
        threads.execute(
            () -> {
              try {
                start.await();
                write(key);
                outcomes.computeIfAbsent("ran", k -> new AtomicInteger()).incrementAndGet();
              } catch (RuntimeException | InterruptedException e) {
                String kind = e.getClass().getSimpleName();
                String outcome =
                    switch (kind) {
                      case "WriterFenceBusyException" -> "busy";
                      case "WriterFenceUnavailableException" -> "unavailable";
                      default -> "other";
                    };
                outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
                if (!outcome.equals("busy")) {
                  failures.add(e.getClass().getName() + " " + e.getMessage());
                }
              }
            });
      }
      long began = System.nanoTime();
      start.countDown();
      threads.shutdown();
      if (!threads.awaitTermination(10, TimeUnit.MINUTES)) {
        System.out.println("failed calls still running after 10 minutes");
      }
      long wallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
      SECTIONS.forEach(System.out::println);
      failures.forEach(f -> System.out.println("failed " + f.replace('\n', ' ')));
      System.out.println("app-pool-after " + select(own));
      System.out.println(
          "outcomes ran="
              + count(outcomes, "ran")
              + " busy="
              + count(outcomes, "busy")
              + " unavailable="
              + count(outcomes, "unavailable")
              + " other="
              + count(outcomes, "other")
              + " no-lease="
              + NO_LEASE.get()
              + " wall-ms="
              + wallMillis);
    }
  }

  /**
   * Named in the agent's {@code fence.methods} with the fence {@code PREFIX:{0}}: runs under the
   * lease of {@code PREFIX:key}, which the application's own core shows.
   */
  static void write(String key) throws InterruptedException {
    long entered = System.nanoTime();
    Optional<FenceLease> lease = WriterFence.current(prefix + ":" + key);
    if (lease.isEmpty()) {
      NO_LEASE.incrementAndGet();
    }
    Thread.sleep(sectionMillis);
    long token = lease.map(FenceLease::fencingToken).orElse(0L);
    SECTIONS.add("section " + key + " " + token + " " + entered + " " + System.nanoTime());
  }

  private static int count(Map<String, AtomicInteger> outcomes, String kind) {
    AtomicInteger n = outcomes.get(kind);
    return n == null ? 0 : n.get();
  }

  private static String select(HikariDataSource pool) throws Exception {
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_setting('application_name')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
