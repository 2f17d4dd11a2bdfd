package dev.writerfence.demo;

import dev.writerfence.LeaseStatus;
import dev.writerfence.store.lease.PgLeaseStore;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The lines a demo run prints while it runs: what it starts, then while the writers write one line
 * a second with the critical sections finished so far and the fence's holder, then what it checks.
 * They go to stdout, or to stderr under {@code --json}, which keeps stdout for the one JSON object.
 */
final class ProgressReporter {
  private final PrintWriter out;
  private final Stopwatch run;

  /**
   * @param out where the lines go
   * @param run the whole run's stopwatch, for the time on each line written while writers run
   */
  ProgressReporter(PrintWriter out, Stopwatch run) {
    this.out = out;
    this.run = run;
  }

  /**
   * @param writers writer processes about to start
   * @param workload what each of them does
   */
  void starting(int writers, Workload workload) {
    out.printf(
        "writer-fence demo: %d writer processes x %d threads, each writes for %d s once started,"
            + " fence '%s'%n",
        writers, workload.threads(), workload.seconds(), workload.fenceName());
    if (workload.breakFence()) {
      out.println("  --break-fence: writers skip the lease, so violations are expected");
    }
    out.flush();
  }

  void databaseReady(String databaseName, String schema, double seconds) {
    out.printf(
        Locale.ROOT,
        "  database: %s, schema '%s' installed (%.1f s)%n",
        databaseName,
        schema,
        seconds);
    out.flush();
  }

  void storageReady(URI endpoint, String bucket, double seconds) {
    out.printf(
        Locale.ROOT,
        "  storage:  S3Proxy (transient, in memory) at %s, bucket '%s' (%.1f s)%n",
        endpoint,
        bucket,
        seconds);
    out.flush();
  }

  void writersStarted(WriterProcesses writers) {
    out.printf("  writers:  %s%n", writers.describe());
    out.flush();
  }

  /**
   * Prints a line every second (every 2 s when the writers write for more than a minute) until
   * every writer has exited. Finished critical sections (each one acquisition of the fence) are
   * counted from the writers' records, one line per section; the holder is read from the lease
   * table.
   *
   * @param writers the running writer processes
   * @param environment the servers, for the lease table
   * @param folder the run folder, for the writers' records
   * @param workload how long the writers write, and their fence
   * @throws InterruptedException when interrupted while waiting
   */
  void watch(
      WriterProcesses writers, DemoEnvironment environment, RunFolder folder, Workload workload)
      throws InterruptedException {
    int seconds = workload.seconds();
    PgLeaseStore store =
        new PgLeaseStore(
            environment.database().dataSource(), environment.schema(), Duration.ofSeconds(5));
    List<LineCounter> records =
        writers.labels().stream().map(l -> new LineCounter(folder.sectionsFile(l))).toList();
    long intervalNanos = Duration.ofSeconds(seconds <= 60 ? 1 : 2).toNanos();
    // Writers stop by themselves once their time is up; this bound only keeps a writer that hangs
    // from holding up the demo forever (the results then stop it and report it as failed).
    long hardDeadline = System.nanoTime() + Duration.ofSeconds(seconds + 120L).toNanos();
    long nextLine = System.nanoTime() + intervalNanos;
    while (writers.anyAlive() && System.nanoTime() < hardDeadline) {
      Thread.sleep(50);
      if (System.nanoTime() >= nextLine) {
        nextLine += intervalNanos;
        long sections = records.stream().mapToLong(LineCounter::count).sum();
        out.printf(
            Locale.ROOT,
            "[%5.1f s] finished sections %6d  holder: %s%n",
            run.seconds(),
            sections,
            holder(store, workload.fenceName()));
        out.flush();
      }
    }
  }

  void checking(double writeSeconds, int sections, int objects) {
    out.printf(
        Locale.ROOT,
        "writers done after %.1f s; checking %d critical sections and %d objects%n",
        writeSeconds,
        sections,
        objects);
    out.flush();
  }

  void kept(RunFolder folder) {
    out.printf("record and logs kept in %s%n", folder.root());
    out.flush();
  }

  /**
   * Who holds the fence now; a failure to ask is shown, not thrown, since this is only progress.
   */
  private static String holder(PgLeaseStore store, String fenceName) {
    try {
      Optional<LeaseStatus> status = store.status(fenceName);
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
}
