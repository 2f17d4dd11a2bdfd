package dev.writerfence.benchmarks.measure;

import dev.writerfence.benchmarks.peers.Backends;
import dev.writerfence.benchmarks.peers.BenchTarget;
import dev.writerfence.benchmarks.peers.LockBackend;
import dev.writerfence.benchmarks.server.RedisServer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts the round trips of one cycle of each backend instead of assuming them. For PostgreSQL,
 * pgjdbc's protocol log at FINEST: every {@code FE=> Sync} the driver sends ends one request it
 * then waits for (BEGIN and COMMIT sent in the same flush as a statement count once, as they cost
 * once). For Redis, the commands clients send, from the server's {@code MONITOR} feed.
 */
public final class RoundTrips {
  private static final String PGJDBC_PROTOCOL = "org.postgresql.core.v3.QueryExecutorImpl";

  private RoundTrips() {}

  /**
   * Round trips per cycle (or per busy attempt) of each measured operation.
   *
   * @param perCycle each row's round trips per cycle, by row name
   * @param cycles cycles counted for each row
   * @param method how they were counted
   */
  public record Result(Map<String, Double> perCycle, int cycles, String method) {}

  /**
   * @param target the servers
   * @param redis the redis-server, or {@code null}
   * @param cycles cycles to count per backend, after as many warm-up cycles
   * @return the counts
   */
  public static Result count(BenchTarget target, RedisServer redis, int cycles) {
    Map<String, Double> perCycle = new LinkedHashMap<>();
    for (LockBackend.Kind kind : LockBackend.Kind.values()) {
      if (kind == LockBackend.Kind.REDISSON) {
        if (redis != null) {
          perCycle.put(kind.id(), redisPerCycle(target, redis, cycles));
        }
        continue;
      }
      try (LockBackend backend = Backends.open(kind, target, 2)) {
        String name = "roundtrips-" + kind.id() + "-" + System.nanoTime();
        perCycle.put(kind.id(), syncsPerCall(cycles, () -> backend.cycle(name, () -> {})));
      }
    }
    perCycle.put("lease (busy attempt)", busyLeaseAttempt(target, cycles));
    return new Result(
        perCycle,
        cycles,
        "PostgreSQL: pgjdbc FE=> Sync messages (one per request the driver waits for), logged at"
            + " FINEST; Redis: commands received from clients in the MONITOR feed (not those its Lua scripts run)");
  }

  private static double busyLeaseAttempt(BenchTarget target, int cycles) {
    try (LockBackend holder = Backends.open(LockBackend.Kind.LEASE, target, 2);
        LockBackend contender = Backends.open(LockBackend.Kind.LEASE, target, 2)) {
      String name = "roundtrips-busy-" + System.nanoTime();
      double[] busy = new double[1];
      holder.cycle(
          name,
          () ->
              busy[0] =
                  syncsPerCall(
                      cycles,
                      () -> {
                        if (contender.cycle(name, () -> {})) {
                          throw new IllegalStateException("a second holder took a held lease");
                        }
                      }));
      return busy[0];
    }
  }

  private static double syncsPerCall(int calls, Runnable call) {
    for (int i = 0; i < calls; i++) {
      call.run(); // warm-up: first-use inserts, prepared statements, pool connections
    }
    Logger protocol = Logger.getLogger(PGJDBC_PROTOCOL);
    AtomicLong syncs = new AtomicLong();
    Handler counter =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            String message = record.getMessage();
            if (message != null && message.trim().equals("FE=> Sync")) {
              syncs.incrementAndGet();
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Level before = protocol.getLevel();
    protocol.addHandler(counter);
    protocol.setLevel(Level.FINEST);
    try {
      for (int i = 0; i < calls; i++) {
        call.run();
      }
    } finally {
      protocol.setLevel(before);
      protocol.removeHandler(counter);
    }
    return (double) syncs.get() / calls;
  }

  private static double redisPerCycle(BenchTarget target, RedisServer redis, int cycles) {
    try (LockBackend backend = Backends.open(LockBackend.Kind.REDISSON, target, 2)) {
      String name = "roundtrips-redisson-" + System.nanoTime();
      for (int i = 0; i < cycles; i++) {
        backend.cycle(name, () -> {});
      }
      long commands =
          redis.clientCommandsDuring(
              () -> {
                for (int i = 0; i < cycles; i++) {
                  backend.cycle(name, () -> {});
                }
              });
      return (double) commands / cycles;
    }
  }
}
