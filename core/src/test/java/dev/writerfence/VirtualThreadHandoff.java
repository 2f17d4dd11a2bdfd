package dev.writerfence;

import dev.writerfence.testing.WriterProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * A process for case C33 on virtual threads, run on a JDK 21 or newer while the build runs on 17
 * (so virtual threads are reached by reflection). Arguments: JDBC URL, schema, fence name. Inside
 * one fenced call it hands tasks to a wrapped virtual-thread-per-task executor and to a virtual
 * thread started with a wrapped task, and one task that outlives the call. It prints {@code parent
 * TOKEN}, then {@code task HOW CURRENT JOINED} per task (-1: no lease), then {@code late CURRENT}
 * for the task that looked after the call ended, then {@code done}.
 */
public final class VirtualThreadHandoff {
  private VirtualThreadHandoff() {}

  /**
   * @param args JDBC URL, schema, fence name
   */
  public static void main(String[] args) throws Exception {
    String name = args[2];
    WriterFence fence =
        WriterFence.builder(WriterProcess.unpooled(args[0]))
            .schema(args[1])
            .defaultTtl(Duration.ofSeconds(30))
            .build();
    Callable<String> look =
        () ->
            token(name)
                + " "
                + fence.call(
                    FenceRequest.builder(name).holderLabel("child").build(), () -> token(name));
    ExecutorService virtual =
        WriterFence.wrap(
            (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null));
    CountDownLatch parentEnded = new CountDownLatch(1);
    FutureTask<Long> late =
        new FutureTask<>(
            () -> {
              parentEnded.await(30, TimeUnit.SECONDS);
              return token(name);
            });
    fence.call(
        FenceRequest.builder(name).holderLabel("parent").build(),
        () -> {
          say("parent " + token(name));
          List<Future<String>> tasks = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            tasks.add(virtual.submit(look));
          }
          for (Future<String> task : tasks) {
            say("task executor " + task.get(30, TimeUnit.SECONDS));
          }
          FutureTask<String> onAThread = new FutureTask<>(look);
          startVirtual(WriterFence.wrap(onAThread));
          say("task thread " + onAThread.get(30, TimeUnit.SECONDS));
          startVirtual(WriterFence.wrap(late));
          return null;
        });
    parentEnded.countDown();
    say("late " + late.get(30, TimeUnit.SECONDS));
    virtual.shutdown();
    fence.close();
    say("done");
  }

  private static long token(String name) {
    return WriterFence.current(name).map(FenceLease::fencingToken).orElse(-1L);
  }

  /** {@code Thread.ofVirtual().start(task)}, which Java 17's API does not name. */
  private static void startVirtual(Runnable task) throws Exception {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    Class.forName("java.lang.Thread$Builder")
        .getMethod("start", Runnable.class)
        .invoke(builder, task);
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
