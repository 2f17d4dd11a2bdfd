package dev.writerfence.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.retry.BusyRetryPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One writer process of the demo, started by {@link WriterProcesses}: several threads that keep
 * entering {@link CorpusWriter#writeBatch} until the time is up, then a summary file. Its fence is
 * the process-wide default ({@link ProcessFence#set}) on a small HikariCP pool of its own.
 */
@Command(name = "demo-writer", description = "One writer process of the demo (started by demo).")
public final class DemoWriter implements Callable<Integer> {
  /** The environment variable that carries the database password, kept off the command line. */
  static final String PASSWORD_ENV = "WRITER_FENCE_DEMO_DB_PASSWORD";

  private static final int MAX_LOGGED_ERRORS = 5;

  @Option(names = "--label", required = true)
  String label;

  @Option(names = "--fence", required = true)
  String fenceName;

  @Option(names = "--threads", required = true)
  int threads;

  @Option(names = "--seconds", required = true)
  int seconds;

  @Option(names = "--batch", required = true)
  int batch;

  @Option(names = "--keys", required = true)
  int keys;

  @Option(names = "--jdbc-url", required = true)
  String jdbcUrl;

  @Option(names = "--user")
  String user;

  @Option(names = "--schema", required = true)
  String schema;

  @Option(names = "--s3-endpoint", required = true)
  URI endpoint;

  @Option(names = "--access-key", required = true)
  String accessKey;

  @Option(names = "--secret-key", required = true)
  String secretKey;

  @Option(names = "--bucket", required = true)
  String bucket;

  @Option(names = "--out", required = true, description = "folder for the record files")
  Path out;

  @Option(names = "--break-fence", description = "grant every acquire: no exclusion at all")
  boolean breakFence;

  private final LongAdder busy = new LongAdder();
  private final LongAdder unavailable = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder acquisitions = new LongAdder();
  private final LongAdder objects = new LongAdder();
  private final AtomicInteger loggedErrors = new AtomicInteger();

  /**
   * @param args the options above
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new DemoWriter()).execute(args));
  }

  /**
   * @param keys how many distinct keys
   * @param i a key number, from 0
   * @return the object key: keys spread over a few shard prefixes
   */
  static String objectKey(int keys, int i) {
    return String.format("corpus/shard-%02d/object-%05d.json", i % Math.min(keys, 8), i);
  }

  /** How long a demo writer waits for its turn (retry.max-wait) before it gives up busy. */
  static final Duration MAX_WAIT = Duration.ofSeconds(60);

  @Override
  public Integer call() throws Exception {
    RunFolder folder = new RunFolder(out);
    AcquireStats stats = new AcquireStats();
    String handOver;
    try (HikariDataSource pool = pool();
        S3Client s3 = S3Clients.create(endpoint, accessKey, secretKey);
        SectionLog log = SectionLog.create(folder.sectionsFile(label))) {
      WriterFence.Builder builder =
          breakFence
              ? WriterFence.builder(new GrantingLeaseStore())
              : WriterFence.builder(pool).schema(schema);
      WriterFence fence =
          builder
              .defaultHolderLabel(label)
              .defaultTtl(Duration.ofSeconds(30))
              // A batch writer that must not skip its turn waits for it: with every thread of
              // every writer queued, a turn comes after eleven others, past the 3 s default budget
              // once the machine is loaded.
              .retryPolicy(BusyRetryPolicy.defaults().withMaxWait(MAX_WAIT))
              .listener(stats)
              .build();
      ProcessFence.set(fence);
      CorpusWriter writer =
          new CorpusWriter(fenceName, s3, bucket, label, new DatabaseClock(pool), stats, log);
      long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        Thread worker = new Thread(() -> work(writer, thread, deadline), label + "-" + t);
        workers.add(worker);
        worker.start();
      }
      for (Thread worker : workers) {
        worker.join();
      }
      // Read before the pool closes; the mode a wait proved stays for the listener's life.
      handOver = fence.queueWakeUp();
      ProcessFence.set(null);
    }
    WriterSummary summary =
        new WriterSummary(
            label,
            ProcessHandle.current().pid(),
            threads,
            acquisitions.sum(),
            busy.sum(),
            stats.retries(),
            unavailable.sum(),
            errors.sum(),
            objects.sum(),
            handOver);
    Json.MAPPER.writeValue(folder.summaryFile(label).toFile(), summary);
    return 0;
  }

  private void work(CorpusWriter writer, int thread, long deadline) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (System.nanoTime() < deadline) {
      List<String> batchKeys = new ArrayList<>(batch);
      for (int i : random.ints(0, keys).distinct().limit(batch).toArray()) {
        batchKeys.add(objectKey(keys, i));
      }
      try {
        SectionRecord section = writer.writeBatch(thread, batchKeys);
        acquisitions.increment();
        objects.add(section.keys().size());
      } catch (WriterFenceBusyException e) {
        busy.increment(); // expected: another writer kept the fence through every attempt
      } catch (WriterFenceUnavailableException e) {
        unavailable.increment();
        logError("unavailable", e);
        pause(200);
      } catch (RuntimeException e) {
        errors.increment();
        logError("error", e);
        pause(50);
      }
      pause(random.nextInt(0, 10)); // a little work outside the fence
    }
  }

  private void logError(String what, Exception e) {
    if (loggedErrors.incrementAndGet() <= MAX_LOGGED_ERRORS) {
      System.err.println(label + " " + Thread.currentThread().getName() + ": " + what + ":");
      e.printStackTrace();
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HikariDataSource pool() {
    HikariConfig config = new HikariConfig();
    config.setPoolName("writer-fence-" + label);
    config.setJdbcUrl(jdbcUrl);
    if (user != null) {
      config.setUsername(user);
    }
    String password = System.getenv(PASSWORD_ENV);
    if (password != null && !password.isEmpty()) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(threads + 1);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    config.setConnectionTimeout(10_000);
    config.addDataSourceProperty("ApplicationName", "writer-fence-demo-" + label);
    return new HikariDataSource(config);
  }
}
