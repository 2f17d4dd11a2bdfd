package org.example.clients;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.example.queue.QueueWriter;

/**
 * Hands a library's writing task to a plain executor, unfenced, once through {@code submit} (a
 * {@code FutureTask}) and once through {@code execute} (the task itself), each from a method of its
 * own, so that the report can name which application frame handed which write over. Argument: the
 * audited directory.
 */
public final class HandOverApp {
  private HandOverApp() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      submitted(pool, dir.resolve("submitted")).get(30, TimeUnit.SECONDS);
      System.out.println("wrote submitted");
      executed(pool, dir.resolve("executed"));
    } finally {
      pool.shutdown();
    }
    if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the pool did not finish the executed task");
    }
    System.out.println("wrote executed");
    Writes.done();
  }

  private static java.util.concurrent.Future<?> submitted(ExecutorService pool, Path file) {
    return pool.submit(new QueueWriter(file));
  }

  private static void executed(ExecutorService pool, Path file) {
    pool.execute(new QueueWriter(file));
  }
}
