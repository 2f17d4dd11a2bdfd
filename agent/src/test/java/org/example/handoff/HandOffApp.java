package org.example.handoff;

import java.net.URI;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import org.example.audit.MixedWriterApp;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * C33's application, run with the real agent under audit enforce: a fenced method puts objects
 * through each hand-off kind. Arguments: S3 endpoint, fence name, bucket, {@code methods} (fenced
 * by {@code fence.methods}), {@code annotation} ({@code @WriterFenced}) or {@code explicit} ({@code
 * fence.methods}, each task wrapped by the app), and the kinds, comma-separated.
 *
 * <p>Prints one {@code kind KIND parent TOKEN refused N} per kind, then {@code outlived refused
 * BOOLEAN} (a task that outlives its fenced method), {@code unrelated pool TOKEN REFUSED fork-join
 * TOKEN REFUSED} (a task submitted by a thread without a hold to a pool whose worker a holder
 * started, while the holder holds) and {@code done}.
 */
public final class HandOffApp {
  private final HandOffs work;

  /**
   * Pools handed to the outsider, a thread started before any hold: it submits a probe to each and
   * answers the probe's line. Pools and lines are data, not tasks, so nothing carries through them.
   */
  private final BlockingQueue<ExecutorService> toOutsider = new SynchronousQueue<>();

  private final BlockingQueue<String> fromOutsider = new SynchronousQueue<>();

  private HandOffApp(HandOffs work) {
    this.work = work;
    Thread outsider =
        new Thread(
            () -> {
              try {
                while (true) {
                  ExecutorService pool = toOutsider.take();
                  fromOutsider.put(pool.submit(() -> probe("unrelated/" + name(pool))).get());
                }
              } catch (InterruptedException | ExecutionException e) {
                // the app ends
              }
            },
            "outsider");
    outsider.setDaemon(true);
    outsider.start();
  }

  private static String name(ExecutorService pool) {
    return pool instanceof ForkJoinPool ? "fork-join" : "pool";
  }

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    String fenceName = args[1];
    String bucket = args[2];
    String how = args[3];
    try (S3Client s3 = MixedWriterApp.syncBuilder(endpoint).build()) {
      HandOffs work = new HandOffs(s3, bucket, fenceName, how.equals("explicit"));
      HandOffApp app = new HandOffApp(work);
      Uploads uploads = how.equals("annotation") ? new AnnotatedUploads(work) : new Uploads(work);
      work.fenced(uploads);
      for (String kind : args[4].split(",")) {
        say(uploads.upload(fenceName, kind));
      }
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(1);
      Future<Boolean> late =
          uploads.inside(
              fenceName,
              () ->
                  pool.submit(
                      () -> {
                        go.await();
                        return work.put("outlive/late");
                      }));
      go.countDown(); // the fenced method has returned: its lease is released
      say("outlived refused " + late.get());
      pool.shutdown();
      say(uploads.unrelated(fenceName, app));
    }
    say("done");
  }

  /** Called inside the hold: see the class comment. */
  String unrelated() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(1);
    ForkJoinPool forkJoin = new ForkJoinPool(1);
    try {
      pool.submit(() -> null).get(); // starts the worker, on this holding thread
      forkJoin.submit(() -> null).get();
      toOutsider.put(pool);
      String viaPool = fromOutsider.take();
      toOutsider.put(forkJoin);
      String viaForkJoin = fromOutsider.take();
      return "unrelated pool " + viaPool + " fork-join " + viaForkJoin;
    } finally {
      pool.shutdown();
      forkJoin.shutdown();
    }
  }

  private String probe(String key) {
    long token = work.current();
    return token + " " + work.put(key);
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
