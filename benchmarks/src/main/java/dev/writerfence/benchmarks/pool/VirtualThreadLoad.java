package dev.writerfence.benchmarks.pool;

import dev.writerfence.benchmarks.weaving.ctw.PoolWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The load of one pool run, in a JVM of its own on a JDK with virtual threads: {@code calls}
 * virtual threads, started together, each calling one fenced method once on fence {@code vt-load:(i
 * mod names)}. Prints {@code outcomes ran=R busy=B unavailable=U other=O wall-ms=W}. Compiled for
 * Java 17: the virtual-thread executor is found by reflection.
 *
 * <p>Arguments: {@code agent} (the plain writer, fenced by the agent) or {@code aspectj} (the woven
 * one), names, calls, section milliseconds.
 */
public final class VirtualThreadLoad {
  private VirtualThreadLoad() {}

  /**
   * @param args mode, names, calls, section milliseconds
   * @throws Exception when the executor cannot be made
   */
  public static void main(String[] args) throws Exception {
    boolean agent = args[0].equals("agent");
    int names = Integer.parseInt(args[1]);
    int calls = Integer.parseInt(args[2]);
    long sectionMillis = Long.parseLong(args[3]);
    Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads =
        (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    for (int i = 0; i < calls; i++) {
      String key = String.valueOf(i % names);
      threads.execute(
          () -> {
            String outcome;
            try {
              start.await();
              if (agent) {
                PlainPoolWriter.write(key, sectionMillis);
              } else {
                PoolWriter.write(key, sectionMillis);
              }
              outcome = "ran";
            } catch (RuntimeException | InterruptedException e) {
              outcome =
                  switch (e.getClass().getSimpleName()) {
                    case "WriterFenceBusyException" -> "busy";
                    case "WriterFenceUnavailableException" -> "unavailable";
                    default -> "other";
                  };
              if (!outcome.equals("busy")) {
                System.err.println(outcome + ": " + e);
              }
            }
            outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
          });
    }
    long began = System.nanoTime();
    start.countDown();
    threads.shutdown();
    threads.awaitTermination(10, TimeUnit.MINUTES);
    long wallMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    System.out.println(
        "outcomes ran="
            + count(outcomes, "ran")
            + " busy="
            + count(outcomes, "busy")
            + " unavailable="
            + count(outcomes, "unavailable")
            + " other="
            + count(outcomes, "other")
            + " wall-ms="
            + wallMillis);
  }

  private static int count(Map<String, AtomicInteger> outcomes, String kind) {
    AtomicInteger n = outcomes.get(kind);
    return n == null ? 0 : n.get();
  }
}
