package dev.writerfence.demo;

import dev.writerfence.cli.audit.AgentAttachment;
import dev.writerfence.cli.audit.AgentJar;
import dev.writerfence.cli.audit.AuditReportFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The demo's legacy writer process: {@link LegacyWriter} in its own JVM with the real agent jar in
 * audit log mode, started beside the fenced writers, its report read when the run ends.
 */
final class LegacyProcess {
  /** Its label, and the name of its log in the run folder. */
  static final String LABEL = "legacy";

  /** The one object it writes. */
  static final String KEY = "exports/nightly.json";

  /** How long to wait for it at the end before calling it hung: it writes one object. */
  private static final long TIMEOUT_SECONDS = 120;

  private final Process process;
  private final Path report;

  private LegacyProcess(Process process, Path report) {
    this.process = process;
    this.report = report;
  }

  /**
   * @param environment the servers; it writes to {@link DemoEnvironment#LEGACY_BUCKET}
   * @param folder where its log and the agent's report go
   * @param cleanup kills it when the run ends
   * @return the running process
   * @throws IOException when it cannot be started
   * @throws IllegalStateException when the agent jar is missing
   */
  static LegacyProcess start(DemoEnvironment environment, RunFolder folder, Cleanup cleanup)
      throws IOException {
    Path report = folder.auditReport(LABEL);
    List<String> command = new ArrayList<>();
    command.add(WriterProcesses.javaBinary());
    command.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m"));
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.add(LegacyWriter.class.getName());
    command.addAll(
        List.of(
            environment.storageEndpoint().toString(),
            DemoStorage.ACCESS_KEY,
            DemoStorage.SECRET_KEY,
            DemoEnvironment.LEGACY_BUCKET,
            KEY));
    ProcessBuilder pb =
        new ProcessBuilder()
            .redirectErrorStream(true)
            .redirectOutput(folder.writerLog(LABEL).toFile());
    pb.command(
        new AgentAttachment(AgentJar.locate(LegacyProcess.class, "demo"), "log", report)
            .attach(command, pb.environment()));
    return new LegacyProcess(cleanup.add(pb.start()), report);
  }

  /**
   * @return its pid
   */
  long pid() {
    return process.pid();
  }

  /**
   * Waits for it to end (killing it if it hangs), then reads the agent's report.
   *
   * @param folder the run folder, to point at its log
   * @return what it did
   * @throws InterruptedException when interrupted while waiting
   */
  LegacyResult result(RunFolder folder) throws InterruptedException {
    Integer exit = null;
    if (process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      exit = process.exitValue();
    } else {
      process.destroyForcibly();
      process.waitFor();
    }
    String log = "; its log: " + folder.writerLog(LABEL);
    if (!Files.isRegularFile(report)) {
      String why = exit == null ? "hung and was killed" : "exited with " + exit;
      return new LegacyResult(
          process.pid(), exit, List.of(), "legacy writer " + why + ", no audit report" + log);
    }
    try {
      AuditReportFile audit = AuditReportFile.read(report);
      String failure = exit != null && exit == 0 ? null : "legacy writer exited with " + exit + log;
      return new LegacyResult(process.pid(), exit, audit.writes(), failure);
    } catch (IOException e) {
      return new LegacyResult(
          process.pid(), exit, List.of(), "legacy writer's audit report: " + e.getMessage() + log);
    }
  }
}
