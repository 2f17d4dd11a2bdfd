package org.example.handoff;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.audit.UnfencedWriteException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The body of a fenced method of {@link HandOffApp}: puts {@value #OBJECTS} objects through one
 * hand-off kind, each stamped (metadata {@value #TOKEN}) with the fencing token its task read from
 * {@code WriterFence.current}, and waits for them all. With {@code explicit}, each task is wrapped
 * by {@link WriterFence#wrap(Callable)} before it is handed off (the agent's propagation being
 * off).
 */
final class HandOffs {
  static final int OBJECTS = 8;
  static final String TOKEN = "fencing-token";

  private final S3Client s3;
  private final String bucket;
  private final String fenceName;
  private final boolean explicit;
  private Uploads fenced;

  HandOffs(S3Client s3, String bucket, String fenceName, boolean explicit) {
    this.s3 = s3;
    this.bucket = bucket;
    this.fenceName = fenceName;
    this.explicit = explicit;
  }

  /** The fenced methods, for the kind whose tasks call one ({@code pool-nested}). */
  void fenced(Uploads uploads) {
    this.fenced = uploads;
  }

  /** The fencing token the current thread sees for the fence; -1 when it holds none. */
  long current() {
    return WriterFence.current(fenceName).map(FenceLease::fencingToken).orElse(-1L);
  }

  /**
   * Puts one object stamped with the token this thread sees.
   *
   * @return {@code true} when the audit refused it
   */
  boolean put(String key) {
    try {
      s3.putObject(
          b -> b.bucket(bucket).key(key).metadata(Map.of(TOKEN, Long.toString(current()))),
          RequestBody.fromString(key));
      return false;
    } catch (UnfencedWriteException e) {
      return true;
    }
  }

  /**
   * @return the line {@code kind KIND parent TOKEN refused N}
   */
  String upload(String kind) throws Exception {
    long parent = current();
    AtomicInteger refused = new AtomicInteger();
    List<Callable<Void>> tasks = new ArrayList<>();
    boolean nested = kind.equals("pool-nested");
    for (int i = 0; i < OBJECTS; i++) {
      String key = kind + "/" + i;
      tasks.add(
          carry(
              () -> {
                // pool-nested: a fenced call of the same name inside the task joins the hold
                if (nested ? fenced.put(fenceName, key) : put(key)) {
                  refused.incrementAndGet();
                }
                return null;
              }));
    }
    run(kind, tasks);
    return "kind " + kind + " parent " + parent + " refused " + refused.get();
  }

  private Callable<Void> carry(Callable<Void> task) {
    return explicit ? WriterFence.wrap(task) : task;
  }

  private static Runnable runnable(Callable<Void> task) {
    return () -> {
      try {
        task.call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
  }

  private static void run(String kind, List<Callable<Void>> tasks) throws Exception {
    switch (kind) {
      case "pool-submit", "pool-nested" ->
          onPool(pool -> all(tasks.stream().map(pool::submit).toList()));
      case "pool-execute" ->
          onPool(
              pool -> {
                CountDownLatch done = new CountDownLatch(tasks.size());
                for (Callable<Void> task : tasks) {
                  Runnable r = runnable(task);
                  pool.execute(
                      () -> {
                        try {
                          r.run();
                        } finally {
                          done.countDown();
                        }
                      });
                }
                done.await();
              });
      case "invoke-all" -> onPool(pool -> all(pool.invokeAll(tasks)));
      case "scheduled" -> {
        ScheduledExecutorService pool = Executors.newScheduledThreadPool(3);
        try {
          List<Future<Void>> futures = new ArrayList<>();
          for (Callable<Void> task : tasks) {
            futures.add(pool.schedule(task, 5, TimeUnit.MILLISECONDS));
          }
          all(futures);
        } finally {
          pool.shutdown();
        }
      }
      case "supply-async" ->
          CompletableFuture.allOf(
                  tasks.stream()
                      .map(t -> CompletableFuture.supplyAsync(supplier(t)))
                      .toArray(CompletableFuture[]::new))
              .join();
      case "supply-async-executor" ->
          onPool(
              pool ->
                  CompletableFuture.allOf(
                          tasks.stream()
                              .map(t -> CompletableFuture.supplyAsync(supplier(t), pool))
                              .toArray(CompletableFuture[]::new))
                      .join());
      case "parallel-stream" ->
          IntStream.range(0, tasks.size()).parallel().forEach(i -> runnable(tasks.get(i)).run());
      case "threads" -> {
        List<Thread> threads = new ArrayList<>();
        for (Callable<Void> task : tasks) {
          Thread t = new Thread(runnable(task));
          t.start();
          threads.add(t);
        }
        for (Thread t : threads) {
          t.join();
        }
      }
      case "virtual-threads" -> {
        // Java 21+ API, called reflectively: this class is compiled for Java 17.
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        List<Thread> threads = new ArrayList<>();
        for (Callable<Void> task : tasks) {
          threads.add((Thread) start.invoke(builder, runnable(task)));
        }
        for (Thread t : threads) {
          t.join();
        }
      }
      case "virtual-executor" -> {
        ExecutorService pool =
            (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try {
          all(tasks.stream().map(pool::submit).toList());
        } finally {
          pool.shutdown();
        }
      }
      default -> throw new IllegalArgumentException("unknown hand-off kind " + kind);
    }
  }

  private static java.util.function.Supplier<Void> supplier(Callable<Void> task) {
    return () -> {
      runnable(task).run();
      return null;
    };
  }

  private static void all(List<Future<Void>> futures) throws Exception {
    for (Future<Void> f : futures) {
      f.get();
    }
  }

  private interface PoolWork {
    void on(ExecutorService pool) throws Exception;
  }

  private static void onPool(PoolWork work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      work.on(pool);
    } finally {
      pool.shutdown();
    }
  }
}
