package dev.writerfence.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.cli.DatabaseOptions;
import dev.writerfence.cli.TextTable;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.LeaseStatus;
import dev.writerfence.store.pg.PgLeaseStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code writer-fence demo}: real writer processes share one bucket through the {@code corpus}
 * fence; afterwards the record of their critical sections and the bucket itself are checked.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run writer processes on one bucket through the fence, then check what they did.",
      "",
      "Starts PostgreSQL (embedded, on 127.0.0.1, unless --jdbc-url is given) and S3Proxy (in"
          + " memory, on 127.0.0.1), then writer processes labelled write-back, upload, pull_sync"
          + " whose threads write batches of objects to one bucket, each batch inside a"
          + " @WriterFenced(\"corpus\") method, each object stamped with its fencing token. Then"
          + " checks the record: no two critical sections overlap, fencing tokens rise in time"
          + " order, every object carries the token of the lease that wrote it last.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:no violation; every writer ran to the end",
      "1:a violation was found, or a writer or server failed",
      "2:bad input; nothing was started"
    })
public final class DemoCommand implements Callable<Integer> {
  /** The bucket every writer writes to. */
  static final String BUCKET = "corpus";

  /** Labels of the writer processes, like the writers of a real corpus. */
  static final List<String> LABELS = List.of("write-back", "upload", "pull_sync");

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--writers",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "writer processes, 1 to 12: write-back, upload, pull_sync, write-back-2, ..."
              + " (default: ${DEFAULT-VALUE})")
  int writers;

  @Option(
      names = "--threads",
      paramLabel = "N",
      defaultValue = "4",
      description = "threads per writer process, 1 to 32 (default: ${DEFAULT-VALUE})")
  int threads;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      defaultValue = "15",
      description = "how long each writer writes, 1 to 3600 seconds (default: ${DEFAULT-VALUE})")
  int seconds;

  @Option(
      names = "--batch",
      paramLabel = "N",
      defaultValue = "4",
      description = "objects written per critical section, 1 to 100 (default: ${DEFAULT-VALUE})")
  int batch;

  @Option(
      names = "--keys",
      paramLabel = "N",
      defaultValue = "48",
      description =
          "distinct object keys, at least --batch and at most 100000; fewer keys, more"
              + " overwrites (default: ${DEFAULT-VALUE})")
  int keys;

  @Option(names = "--json", description = "print one JSON object on stdout, progress on stderr")
  boolean json;

  @Option(
      names = "--keep",
      description =
          "keep the folder with the record and the writers' logs (kept anyway on failure)")
  boolean keep;

  @Option(
      names = "--break-fence",
      hidden = true,
      description =
          "for testing the checks: writers skip the lease (every acquire is granted at once), so"
              + " the run must end with violations and exit status 1")
  boolean breakFence;

  @Mixin DatabaseOptions db;

  @Override
  public Integer call() throws Exception {
    validate();
    long t0 = System.nanoTime();
    LoggerFactory.getILoggerFactory(); // once, before the servers' threads log concurrently
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter progress = json ? spec.commandLine().getErr() : out;
    Path work = Files.createTempDirectory("writer-fence-demo-");
    boolean ok = false;
    Cleanup cleanup = new Cleanup();
    try (cleanup) {
      if (!keep) {
        cleanup.onInterrupt(() -> deleteTree(work)); // Ctrl-C: leave nothing behind
      }
      progress.printf(
          "writer-fence demo: %d writer processes x %d threads, %d s each, fence '%s'%n",
          writers, threads, seconds, CorpusWriter.FENCE_NAME);
      if (breakFence) {
        progress.println("  --break-fence: writers skip the lease, so violations are expected");
      }
      progress.flush();

      // S3Proxy starts on another thread while PostgreSQL starts on this one.
      long t = System.nanoTime();
      CompletableFuture<DemoStorage> storageStart =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return DemoStorage.start();
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              });
      cleanup.onClose(() -> storageStart.thenAccept(DemoCommand::closeQuietly));
      DemoDatabase database =
          cleanup.add(
              db.jdbcUrl() == null
                  ? DemoDatabase.embedded(
                      work.resolve("postgres.log"), writers * (threads + 2) + 20)
                  : DemoDatabase.external(db.jdbcUrl(), db.user(), db.password()));
      FenceSchema.defaults().schema(db.schema()).install(database.dataSource());
      String databaseName = database.describe();
      progress.printf(
          Locale.ROOT,
          "  database: %s, schema '%s' installed (%.1f s)%n",
          databaseName,
          db.schema(),
          secondsSince(t));
      progress.flush();

      DemoStorage storage = started(storageStart);
      S3Client s3 =
          cleanup.add(
              S3Clients.create(storage.endpoint(), DemoStorage.ACCESS_KEY, DemoStorage.SECRET_KEY));
      s3.createBucket(b -> b.bucket(BUCKET));
      progress.printf(
          Locale.ROOT,
          "  storage:  S3Proxy (transient, in memory) at %s, bucket '%s' (%.1f s)%n",
          storage.endpoint(),
          BUCKET,
          secondsSince(t));

      List<String> labels = labels(writers);
      List<Process> processes = new ArrayList<>();
      for (String label : labels) {
        processes.add(cleanup.add(launch(label, work, database, storage)));
      }
      progress.printf(
          "  writers:  %s%n",
          String.join(
              ", ",
              labels.stream()
                  .map(l -> l + " (pid " + processes.get(labels.indexOf(l)).pid() + ")")
                  .toList()));
      progress.flush();

      long launched = System.nanoTime();
      watch(processes, labels, work, database, progress, t0);
      if (cleanup.wasInterrupted()) {
        throw new CancellationException("stopped by a signal");
      }
      double writeSeconds = secondsSince(launched);

      List<WriterResult> results = new ArrayList<>();
      for (int i = 0; i < labels.size(); i++) {
        results.add(result(labels.get(i), processes.get(i), work));
      }
      List<SectionRecord> sections = results.stream().flatMap(r -> r.sections().stream()).toList();
      Map<String, ObjectStamp> stamps = readStamps(s3);
      progress.printf(
          Locale.ROOT,
          "writers done after %.1f s; checking %d critical sections and %d objects%n",
          writeSeconds,
          sections.size(),
          stamps.size());
      progress.flush();
      CheckReport check = RecordChecker.check(sections, stamps);
      List<String> failures = failures(results, work);
      ok = check.violations() == 0 && failures.isEmpty();
      double total = secondsSince(t0);
      if (json) {
        out.println(
            Json.MAPPER.writeValueAsString(
                json(results, check, failures, ok, total, databaseName, storage)));
      } else {
        printSummary(out, results, check, failures, ok, total);
      }
      out.flush();
      return ok ? 0 : 1;
    } finally {
      if (cleanup.wasInterrupted()) {
        // stopped by a signal: the shutdown hook has stopped everything and cleaned up
      } else if (ok && !keep) {
        deleteTree(work);
      } else {
        progress.printf("record and logs kept in %s%n", work);
        progress.flush();
      }
    }
  }

  private static DemoStorage started(CompletableFuture<DemoStorage> start) throws Exception {
    try {
      return start.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception e) {
      // stopping: nothing more to do about it
    }
  }

  private void validate() {
    db.validate(false);
    range("--writers", writers, 1, 12, "writer processes");
    range("--threads", threads, 1, 32, "threads per writer");
    range("--seconds", seconds, 1, 3600, "seconds");
    range("--batch", batch, 1, 100, "objects per critical section");
    range("--keys", keys, 1, 100_000, "distinct object keys");
    if (keys < batch) {
      throw new ParameterException(
          spec.commandLine(),
          "--keys "
              + keys
              + " is not allowed: at least --batch ("
              + batch
              + "), since a batch writes distinct keys");
    }
  }

  private void range(String option, int value, int min, int max, String what) {
    if (value < min || value > max) {
      throw new ParameterException(
          spec.commandLine(),
          option + " " + value + " is not allowed: " + min + " to " + max + " " + what);
    }
  }

  /**
   * @param n how many writers
   * @return their holder labels: write-back, upload, pull_sync, write-back-2, upload-2, ...
   */
  static List<String> labels(int n) {
    List<String> labels = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String base = LABELS.get(i % LABELS.size());
      labels.add(i < LABELS.size() ? base : base + "-" + (i / LABELS.size() + 1));
    }
    return labels;
  }

  private Process launch(String label, Path work, DemoDatabase database, DemoStorage storage)
      throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DemoWriter.class.getName());
    command.addAll(
        List.of(
            "--label", label,
            "--threads", Integer.toString(threads),
            "--seconds", Integer.toString(seconds),
            "--batch", Integer.toString(batch),
            "--keys", Integer.toString(keys),
            "--jdbc-url", database.jdbcUrl(),
            "--schema", db.schema(),
            "--s3-endpoint", storage.endpoint().toString(),
            "--access-key", DemoStorage.ACCESS_KEY,
            "--secret-key", DemoStorage.SECRET_KEY,
            "--bucket", BUCKET,
            "--out", work.toString()));
    if (breakFence) {
      command.add("--break-fence");
    }
    if (database.user() != null && !database.user().isEmpty()) {
      command.add("--user");
      command.add(database.user());
    }
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve(label + ".log").toFile());
    pb.environment().remove(DemoWriter.PASSWORD_ENV);
    if (database.password() != null) {
      pb.environment().put(DemoWriter.PASSWORD_ENV, database.password());
    }
    return pb.start();
  }

  /** Shows progress until every writer has exited (or the time is well past). */
  private void watch(
      List<Process> processes,
      List<String> labels,
      Path work,
      DemoDatabase database,
      PrintWriter progress,
      long t0)
      throws InterruptedException {
    PgLeaseStore store =
        new PgLeaseStore(database.dataSource(), db.schema(), Duration.ofSeconds(5));
    List<LineCounter> counters =
        labels.stream().map(l -> new LineCounter(DemoWriter.sectionsFile(work, l))).toList();
    long intervalNanos = Duration.ofSeconds(seconds <= 60 ? 1 : 2).toNanos();
    long hardDeadline = System.nanoTime() + Duration.ofSeconds(seconds + 120L).toNanos();
    long nextLine = System.nanoTime() + intervalNanos;
    while (processes.stream().anyMatch(Process::isAlive) && System.nanoTime() < hardDeadline) {
      Thread.sleep(50);
      if (System.nanoTime() >= nextLine) {
        nextLine += intervalNanos;
        long acquisitions = counters.stream().mapToLong(LineCounter::count).sum();
        progress.printf(
            Locale.ROOT,
            "[%5.1f s] acquisitions %6d  holder: %s%n",
            secondsSince(t0),
            acquisitions,
            holder(store));
        progress.flush();
      }
    }
  }

  private static String holder(PgLeaseStore store) {
    try {
      Optional<LeaseStatus> status = store.status(CorpusWriter.FENCE_NAME);
      if (status.isEmpty()) {
        return "none yet";
      }
      LeaseStatus s = status.get();
      if (s.isHeld()) {
        return s.holderLabel() + " (fencing token " + s.fencingToken() + ")";
      }
      return "none ("
          + s.state()
          + "; last "
          + s.holderLabel()
          + ", token "
          + s.fencingToken()
          + ")";
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static WriterResult result(String label, Process process, Path work)
      throws IOException, InterruptedException {
    Integer exit = null;
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor();
    } else {
      exit = process.exitValue();
    }
    Path sectionsFile = DemoWriter.sectionsFile(work, label);
    List<SectionRecord> sections =
        Files.exists(sectionsFile) ? SectionLog.read(sectionsFile) : List.of();
    Path summaryFile = DemoWriter.summaryFile(work, label);
    WriterSummary summary =
        Files.exists(summaryFile)
            ? Json.MAPPER.readValue(summaryFile.toFile(), WriterSummary.class)
            : null;
    return new WriterResult(label, process.pid(), exit, summary, sections);
  }

  /** Reads every object's stamp back: user metadata and body, through getObject. */
  private static Map<String, ObjectStamp> readStamps(S3Client s3) throws IOException {
    Map<String, ObjectStamp> stamps = new TreeMap<>();
    for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents()) {
      ResponseBytes<GetObjectResponse> object =
          s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(o.key()));
      Map<String, String> metadata = object.response().metadata();
      JsonNode body = Json.MAPPER.readTree(object.asByteArray());
      JsonNode bodyToken = body.get("fencing_token");
      stamps.put(
          o.key(),
          new ObjectStamp(
              o.key(),
              parseToken(metadata.get(CorpusWriter.TOKEN_METADATA)),
              metadata.get(CorpusWriter.HOLDER_METADATA),
              bodyToken != null && bodyToken.canConvertToLong() ? bodyToken.asLong() : null));
    }
    return stamps;
  }

  private static Long parseToken(String value) {
    try {
      return value == null ? null : Long.valueOf(value);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** What went wrong apart from the checks: writers that failed, errors, nothing acquired. */
  private static List<String> failures(List<WriterResult> results, Path work) {
    List<String> failures = new ArrayList<>();
    for (WriterResult r : results) {
      String failure = r.failure();
      if (failure != null) {
        failures.add(
            "writer "
                + r.writer()
                + " (pid "
                + r.pid()
                + ") "
                + failure
                + "; its log: "
                + work.resolve(r.writer() + ".log"));
      }
      if (r.errors() > 0 || r.unavailable() > 0) {
        failures.add(
            "writer "
                + r.writer()
                + " had "
                + r.errors()
                + " failed writes and "
                + r.unavailable()
                + " unavailable outcomes; its log: "
                + work.resolve(r.writer() + ".log"));
      }
    }
    if (results.stream().mapToLong(WriterResult::acquisitions).sum() == 0) {
      failures.add("no writer acquired the fence: nothing was shown");
    }
    return failures;
  }

  private void printSummary(
      PrintWriter out,
      List<WriterResult> results,
      CheckReport check,
      List<String> failures,
      boolean ok,
      double total) {
    TextTable table =
        new TextTable(
                "writer",
                "pid",
                "threads",
                "acquisitions",
                "busy",
                "retries",
                "mean wait ms",
                "max wait ms",
                "objects",
                "errors")
            .alignRight(1, 2, 3, 4, 5, 6, 7, 8, 9);
    for (WriterResult r : results) {
      table.row(
          r.writer(),
          r.pid(),
          r.threads(),
          r.acquisitions(),
          r.busy(),
          r.retries(),
          ms(r.meanWaitMs()),
          ms(r.maxWaitUs() / 1000.0),
          r.objects(),
          r.errors() + r.unavailable());
    }
    Totals t = new Totals(results);
    table.row(
        "total",
        "",
        t.threads,
        t.acquisitions,
        t.busy,
        t.retries,
        ms(t.meanWaitMs),
        ms(t.maxWaitMs),
        t.objects,
        t.errors + t.unavailable);
    out.println();
    table.print(out);
    out.println();
    out.printf(
        "overlaps: %d   token order violations: %d   lease violations: %d   stamp violations: %d%n",
        check.overlaps(),
        check.tokenOrderViolations(),
        check.leaseViolations(),
        check.stampViolations());
    out.printf(
        "handovers between writer processes: %d   highest fencing token: %d   objects checked: %d%n",
        check.handovers(), t.maxToken, check.objects());
    check.examples().forEach(e -> out.println("  " + e));
    failures.forEach(f -> out.println("  " + f));
    if (ok) {
      out.printf(
          Locale.ROOT,
          "OK: %d critical sections, none overlapping; fencing tokens rose in time order; every"
              + " object carries the token of the lease that wrote it last (%.1f s)%n",
          check.sections(),
          total);
    } else {
      out.printf(
          Locale.ROOT,
          "FAILED: %d violations, %d other failures (%.1f s)%n",
          check.violations(),
          failures.size(),
          total);
    }
  }

  private ObjectNode json(
      List<WriterResult> results,
      CheckReport check,
      List<String> failures,
      boolean ok,
      double total,
      String databaseName,
      DemoStorage storage) {
    Totals t = new Totals(results);
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("ok", ok);
    root.put("writers", results.size());
    root.put("threads", threads);
    root.put("seconds", round(total));
    root.put("write_seconds", seconds);
    root.put("acquisitions", t.acquisitions);
    root.put("busy", t.busy);
    root.put("retries", t.retries);
    root.put("unavailable", t.unavailable);
    root.put("errors", t.errors);
    root.put("mean_wait_ms", round(t.meanWaitMs));
    root.put("max_wait_ms", round(t.maxWaitMs));
    root.put("objects_written", t.objects);
    root.put("objects_checked", check.objects());
    root.put("handovers", check.handovers());
    root.put("max_fencing_token", t.maxToken);
    root.put("overlaps", check.overlaps());
    root.put("token_order_violations", check.tokenOrderViolations());
    root.put("lease_violations", check.leaseViolations());
    root.put("stamp_violations", check.stampViolations());
    root.put("violations", check.violations());
    ArrayNode perWriter = root.putArray("per_writer");
    for (WriterResult r : results) {
      ObjectNode w = perWriter.addObject();
      w.put("writer", r.writer());
      w.put("pid", r.pid());
      w.put("threads", r.threads());
      w.put("acquisitions", r.acquisitions());
      w.put("busy", r.busy());
      w.put("retries", r.retries());
      w.put("mean_wait_ms", round(r.meanWaitMs()));
      w.put("max_wait_ms", round(r.maxWaitUs() / 1000.0));
      w.put("objects_written", r.objects());
      w.put("unavailable", r.unavailable());
      w.put("errors", r.errors());
      if (r.exitCode() != null) {
        w.put("exit_code", r.exitCode());
      } else {
        w.putNull("exit_code");
      }
    }
    ArrayNode examples = root.putArray("violation_examples");
    check.examples().forEach(examples::add);
    ArrayNode fails = root.putArray("failures");
    failures.forEach(fails::add);
    root.put("fence_name", CorpusWriter.FENCE_NAME);
    root.put("database", databaseName);
    root.put("storage", "S3Proxy transient at " + storage.endpoint() + ", bucket " + BUCKET);
    return root;
  }

  /** Totals over every writer. */
  private static final class Totals {
    final long threads;
    final long acquisitions;
    final long busy;
    final long retries;
    final long unavailable;
    final long errors;
    final long objects;
    final double meanWaitMs;
    final double maxWaitMs;
    final long maxToken;

    Totals(List<WriterResult> results) {
      threads = results.stream().mapToLong(WriterResult::threads).sum();
      acquisitions = results.stream().mapToLong(WriterResult::acquisitions).sum();
      busy = results.stream().mapToLong(WriterResult::busy).sum();
      retries = results.stream().mapToLong(WriterResult::retries).sum();
      unavailable = results.stream().mapToLong(WriterResult::unavailable).sum();
      errors = results.stream().mapToLong(WriterResult::errors).sum();
      objects = results.stream().mapToLong(WriterResult::objects).sum();
      long waitUs = results.stream().mapToLong(WriterResult::totalWaitUs).sum();
      meanWaitMs = acquisitions == 0 ? 0 : waitUs / 1000.0 / acquisitions;
      maxWaitMs = results.stream().mapToLong(WriterResult::maxWaitUs).max().orElse(0) / 1000.0;
      maxToken =
          results.stream()
              .flatMap(r -> r.sections().stream())
              .mapToLong(SectionRecord::token)
              .max()
              .orElse(0);
    }
  }

  private static String ms(double millis) {
    return String.format(Locale.ROOT, "%.1f", millis);
  }

  private static double round(double v) {
    return Math.round(v * 10.0) / 10.0;
  }

  private static double secondsSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(DemoCommand::deleteQuietly);
    } catch (IOException e) {
      // a temporary folder left behind is no failure of the demo
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Counts the lines a writer has appended to its record so far, reading only what is new. */
  private static final class LineCounter {
    private final Path file;
    private long offset;
    private long lines;

    LineCounter(Path file) {
      this.file = file;
    }

    long count() {
      try (var channel = java.nio.channels.FileChannel.open(file)) {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(64 * 1024);
        int n;
        while ((n = channel.read(buffer, offset)) > 0) {
          for (int i = 0; i < n; i++) {
            if (buffer.get(i) == '\n') {
              lines++;
            }
          }
          offset += n;
          buffer.clear();
        }
      } catch (IOException e) {
        // not created yet: nothing counted
      }
      return lines;
    }
  }

  /**
   * Stops what the demo started, in reverse order: writer processes first, then the S3 client,
   * S3Proxy and PostgreSQL. Also on Ctrl-C, as a shutdown hook.
   */
  private static final class Cleanup implements AutoCloseable {
    private final Deque<Object> resources = new ArrayDeque<>();
    private final Thread hook = new Thread(this::interrupted, "writer-fence-demo-cleanup");
    private final List<Runnable> onInterrupt = new ArrayList<>();
    private boolean stopped;
    private volatile boolean interrupted;

    boolean wasInterrupted() {
      return interrupted;
    }

    Cleanup() {
      Runtime.getRuntime().addShutdownHook(hook);
    }

    synchronized <T extends AutoCloseable> T add(T resource) {
      resources.push(resource);
      return resource;
    }

    /** Runs after everything is stopped, only when the JVM is stopped (Ctrl-C) mid-run. */
    synchronized void onInterrupt(Runnable action) {
      onInterrupt.add(action);
    }

    synchronized void onClose(AutoCloseable action) {
      resources.push(action);
    }

    synchronized Process add(Process process) {
      resources.push(process);
      return process;
    }

    @Override
    public void close() {
      stopAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook runs, and finds everything stopped
      }
    }

    private synchronized void interrupted() {
      interrupted = true;
      stopAll();
      onInterrupt.forEach(Runnable::run);
    }

    private synchronized void stopAll() {
      if (stopped) {
        return;
      }
      stopped = true;
      for (Object r : resources) {
        if (r instanceof Process p && p.isAlive()) {
          p.destroyForcibly();
        }
      }
      while (!resources.isEmpty()) {
        Object r = resources.pop();
        try {
          if (r instanceof AutoCloseable c) {
            c.close();
          }
        } catch (Exception e) {
          // stopping: nothing more to do about it
        }
      }
    }
  }
}
