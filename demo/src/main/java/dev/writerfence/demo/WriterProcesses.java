package dev.writerfence.demo;

import dev.writerfence.cli.audit.AgentAttachment;
import dev.writerfence.cli.audit.AgentJar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The writer processes of a run: one {@link DemoWriter} JVM per holder label, started with this
 * JVM's {@code java} and class path (so they run the same woven {@link CorpusWriter}), each with
 * its output in its own log in the run folder. Each runs with the real agent in audit log mode with
 * {@code audit.map} on, so that its report ({@link RunFolder#auditReport}) lists its fenced writes:
 * the rows of the bucket's writer map ({@link DemoWriterMap}). The agent only watches there: the
 * fence is the woven aspect's.
 */
final class WriterProcesses {
  /** Labels of the writer processes, like the writers of a real corpus. */
  static final List<String> LABELS = List.of("write-back", "upload", "pull_sync");

  private final List<String> labels;
  private final List<Process> processes;
  private final RunFolder folder;

  private WriterProcesses(List<String> labels, List<Process> processes, RunFolder folder) {
    this.labels = labels;
    this.processes = processes;
    this.folder = folder;
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

  /**
   * Starts one writer process per label. Each is handed to {@code cleanup} the moment it runs, so
   * that a failure to start the next one, or Ctrl-C, still stops it.
   *
   * @param labels the writers' holder labels
   * @param workload what each of them does
   * @param environment the servers they write through
   * @param folder where they write their records, summaries and logs
   * @param cleanup kills them when the run ends
   * @return the running processes
   * @throws IOException when a process cannot be started
   */
  static WriterProcesses start(
      List<String> labels,
      Workload workload,
      DemoEnvironment environment,
      RunFolder folder,
      Cleanup cleanup)
      throws IOException {
    Path agentJar = AgentJar.locate(WriterProcesses.class, "demo");
    List<Process> processes = new ArrayList<>();
    for (String label : labels) {
      processes.add(cleanup.add(launch(label, workload, environment, folder, agentJar)));
    }
    return new WriterProcesses(labels, processes, folder);
  }

  /**
   * @return the holder labels, in launch order
   */
  List<String> labels() {
    return labels;
  }

  /**
   * @return whether any writer process still runs
   */
  boolean anyAlive() {
    return processes.stream().anyMatch(Process::isAlive);
  }

  /**
   * @return for example {@code write-back (pid 4711), upload (pid 4712)}
   */
  String describe() {
    return IntStream.range(0, labels.size())
        .mapToObj(i -> labels.get(i) + " (pid " + processes.get(i).pid() + ")")
        .collect(Collectors.joining(", "));
  }

  /**
   * Kills any writer process still running, then reads what each one left in the run folder.
   *
   * @return one result per writer, in launch order
   * @throws IOException when a record or summary cannot be read
   * @throws InterruptedException when interrupted while waiting for a killed process
   */
  List<WriterResult> results() throws IOException, InterruptedException {
    List<WriterResult> results = new ArrayList<>();
    for (int i = 0; i < labels.size(); i++) {
      results.add(result(labels.get(i), processes.get(i)));
    }
    return results;
  }

  private WriterResult result(String label, Process process)
      throws IOException, InterruptedException {
    Integer exit = null;
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor();
    } else {
      exit = process.exitValue();
    }
    Path sectionsFile = folder.sectionsFile(label);
    List<SectionRecord> sections =
        Files.exists(sectionsFile) ? SectionLog.read(sectionsFile) : List.of();
    Path summaryFile = folder.summaryFile(label);
    WriterSummary summary =
        Files.exists(summaryFile)
            ? Json.MAPPER.readValue(summaryFile.toFile(), WriterSummary.class)
            : null;
    return new WriterResult(label, process.pid(), exit, summary, sections);
  }

  private static Process launch(
      String label, Workload workload, DemoEnvironment environment, RunFolder folder, Path agent)
      throws IOException {
    DemoDatabase database = environment.database();
    ProcessBuilder pb =
        new ProcessBuilder()
            .redirectErrorStream(true)
            .redirectOutput(folder.writerLog(label).toFile());
    pb.command(
        new AgentAttachment(agent, "log", folder.auditReport(label), true)
            .attach(command(label, workload, environment, folder), pb.environment()));
    // The password goes by the environment, where other users cannot read it as they can a
    // command line; an inherited one is removed so that only the demo's own reaches the writer.
    pb.environment().remove(DemoWriter.PASSWORD_ENV);
    if (database.password() != null) {
      pb.environment().put(DemoWriter.PASSWORD_ENV, database.password());
    }
    return pb.start();
  }

  /**
   * @return the {@code java} that runs this JVM
   */
  static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  /** The writer's command line: a small, quick-starting JVM running {@link DemoWriter}. */
  private static List<String> command(
      String label, Workload workload, DemoEnvironment environment, RunFolder folder) {
    List<String> command = new ArrayList<>();
    command.add(javaBinary());
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DemoWriter.class.getName());
    command.addAll(
        List.of(
            "--label", label,
            "--fence", workload.fenceName(),
            "--threads", Integer.toString(workload.threads()),
            "--seconds", Integer.toString(workload.seconds()),
            "--batch", Integer.toString(workload.batch()),
            "--keys", Integer.toString(workload.keys()),
            "--jdbc-url", environment.database().jdbcUrl(),
            "--schema", environment.schema(),
            "--s3-endpoint", environment.storageEndpoint().toString(),
            "--access-key", DemoStorage.ACCESS_KEY,
            "--secret-key", DemoStorage.SECRET_KEY,
            "--bucket", DemoEnvironment.BUCKET,
            "--out", folder.root().toString()));
    if (workload.breakFence()) {
      command.add("--break-fence");
    }
    DemoDatabase database = environment.database();
    if (database.user() != null && !database.user().isEmpty()) {
      command.add("--user");
      command.add(database.user());
    }
    return command;
  }
}
