package dev.writerfence.demo;

import dev.writerfence.cli.DatabaseOptions;
import dev.writerfence.internal.FenceArguments;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence demo}: real writer processes share one bucket through one fence ({@code
 * --fence}, {@code corpus} by default); afterwards the record of their critical sections and the
 * bucket itself are checked.
 *
 * <p>This class holds the options and runs the steps in order: {@link DemoEnvironment} starts the
 * servers, {@link WriterProcesses} the writers, {@link ProgressReporter} shows them at work, {@link
 * RecordChecker} checks what they did, {@link LegacyProcess} runs a writer without the fence under
 * the agent's audit, {@link DemoWriterMap} draws the writer map of the bucket from the agent's
 * reports, and {@link TextSummary} or {@link JsonSummary} prints the outcome, ending with that map.
 * {@link Cleanup} stops everything, also on Ctrl-C.
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
          + " @WriterFenced method on the fence --fence (default corpus), each object stamped with"
          + " its fencing token. Then checks the record: no two critical sections overlap, fencing"
          + " tokens rise in time order, every object carries the token of the lease that wrote it"
          + " last.",
      "",
      "Then a legacy writer with no writer-fence code, run with the agent in audit log mode,"
          + " writes one object (bucket legacy-exports) without the fence: the summary lists it"
          + " as an unfenced write, and none of the fenced writers' writes.",
      "",
      "The writer processes run with the agent in audit log mode too, recording their fenced"
          + " writes (audit.map): the summary ends with the writer acquisition map of the bucket,"
          + " as 'writer-fence audit --map' prints it: each writer's call site, fence name,"
          + " holder label and status. A writer of the bucket that is not fenced under --fence"
          + " fails the run.",
      "",
      "With --jdbc-url on a shared database, pick a fence name and a schema that no real writer"
          + " uses (for example --fence demo-$USER --schema demo_fence): the demo's writers take"
          + " the fence, and real writers of the same fence name in the same schema would have to"
          + " wait for them. The demo installs the SQL contract in that schema (idempotent),"
          + " so connect as a role that may create it.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:no violation; every writer ran to the end",
      "1:a violation was found, or a writer or server failed",
      "2:bad input; nothing was started"
    })
public final class DemoCommand implements Callable<Integer> {
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

  @Option(
      names = "--map-file",
      paramLabel = "FILE",
      defaultValue = "writer-fence-demo-map.html",
      description =
          "where the picture of the bucket's writer map goes, replaced on each run: FILE.html, a"
              + " page with the diagram and the table (readable offline), or FILE.mmd, the Mermaid"
              + " text (default: ${DEFAULT-VALUE}, in the working directory)")
  Path mapFile;

  @Option(
      names = "--fence",
      paramLabel = "NAME",
      defaultValue = CorpusWriter.DEFAULT_FENCE_NAME,
      description =
          "the fence name every writer contends for; on a shared database one that no real writer"
              + " uses (default: ${DEFAULT-VALUE})")
  String fenceName;

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

  @Mixin DatabaseOptions.OptionalUrl db;

  @Override
  public Integer call() throws Exception {
    validate();
    Stopwatch run = Stopwatch.start();
    LoggerFactory.getILoggerFactory(); // once, before the servers' threads log concurrently
    PrintWriter out = spec.commandLine().getOut();
    ProgressReporter progress = new ProgressReporter(json ? spec.commandLine().getErr() : out, run);
    Workload workload = new Workload(fenceName, threads, seconds, batch, keys, breakFence);
    RunFolder folder = RunFolder.createTemporary();
    boolean ok = false;
    Cleanup cleanup = new Cleanup();
    try (cleanup) {
      if (!keep) {
        cleanup.onInterrupt(folder::delete); // Ctrl-C: leave nothing behind
      }
      progress.starting(writers, workload);
      // Room for every writer's pool (threads + 1 connections each), with some to spare.
      int maxConnections = writers * (threads + 2) + 20;
      DemoEnvironment environment =
          DemoEnvironment.start(db, maxConnections, folder, cleanup, progress);
      WriterProcesses processes =
          WriterProcesses.start(
              WriterProcesses.labels(writers), workload, environment, folder, cleanup);
      progress.writersStarted(processes);

      Stopwatch writing = Stopwatch.start();
      progress.watch(processes, environment, folder, workload);
      if (cleanup.wasInterrupted()) {
        throw new CancellationException("stopped by a signal");
      }
      double writeSeconds = writing.seconds();
      // After the fenced writers, so its JVM start takes no CPU from them; it runs while their
      // record and the bucket are checked.
      LegacyProcess legacy = LegacyProcess.start(environment, folder, cleanup);

      List<WriterResult> results = processes.results();
      List<SectionRecord> sections = results.stream().flatMap(r -> r.sections().stream()).toList();
      Map<String, ObjectStamp> stamps =
          StampReader.readAll(environment.s3(), DemoEnvironment.BUCKET);
      progress.checking(writeSeconds, sections.size(), stamps.size());
      CheckReport check = RecordChecker.check(sections, stamps);
      LegacyResult legacyResult = legacy.result(folder);
      DemoWriterMap writerMap =
          DemoWriterMap.read(results, folder, DemoEnvironment.BUCKET, workload.fenceName());
      DemoOutcome outcome =
          DemoOutcome.of(results, check, legacyResult, writerMap, folder, run.seconds());
      ok = outcome.ok();
      writerMap.writePicture(mapFile);
      Path picture = mapFile.toAbsolutePath();
      if (json) {
        out.println(Json.MAPPER.writeValueAsString(JsonSummary.of(outcome, workload, environment)));
        // stdout is the JSON alone
        spec.commandLine().getErr().println(TextSummary.pictureLine(picture));
      } else {
        TextSummary.print(out, outcome, picture);
      }
      out.flush();
      return ok ? 0 : 1;
    } finally {
      if (cleanup.wasInterrupted()) {
        // stopped by a signal: the shutdown hook has stopped everything and cleaned up
      } else if (ok && !keep) {
        folder.delete();
      } else {
        progress.kept(folder);
      }
    }
  }

  private void validate() {
    db.validate();
    try {
      DemoWriterMap.pictureFormat(mapFile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    range("--writers", writers, 1, 12, "writer processes");
    range("--threads", threads, 1, 32, "threads per writer");
    range("--seconds", seconds, 1, 3600, "seconds");
    range("--batch", batch, 1, 100, "objects per critical section");
    range("--keys", keys, 1, 100_000, "distinct object keys");
    try {
      FenceArguments.fenceName(fenceName);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), e.getMessage().replace("fence name '", "--fence '"));
    }
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
}
