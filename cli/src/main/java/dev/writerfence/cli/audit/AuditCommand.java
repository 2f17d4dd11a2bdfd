package dev.writerfence.cli.audit;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence audit [--report FILE] [--enforce] -- COMMAND...}: runs a Java command with
 * the agent attached in audit mode ({@link AgentAttachment}), waits for it, then prints the agent's
 * report of unfenced writes as a table ({@link UnfencedWriteTable}).
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run a Java command with the writer-fence agent in audit mode, then list its unfenced"
          + " writes: storage writes made while the writing thread held no fence.",
      "",
      "A command starting with java gets -javaagent and the audit settings right after java;"
          + " any other command (a script) gets them through JAVA_TOOL_OPTIONS, after its"
          + " existing value. The command inherits this terminal.",
      ""
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "N:the command's own exit status",
      "3:--enforce, and the agent refused at least one write",
      "4:--fail-on, and the writer map has a writer of that status",
      "1:the command could not be started, or it left no audit report",
      "2:bad input; nothing was started"
    })
public final class AuditCommand implements Callable<Integer> {
  /** The exit status when enforce mode refused a write. */
  public static final int REFUSED = 3;

  /** The exit status when the writer map has a writer of a status {@code --fail-on} names. */
  public static final int MAP_FAILED = 4;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description = "keep the agent's JSON report in FILE (default: a temporary file, deleted)")
  Path report;

  @Option(
      names = "--enforce",
      description = "refuse unfenced writes (UnfencedWriteException) instead of only listing them")
  boolean enforce;

  @Option(
      names = "--map",
      description =
          "record fenced writes too (audit.map) and print the writer map: per bucket, each"
              + " writer's call site, fence name, holder label and status (fenced, unfenced,"
              + " inconsistent)")
  boolean map;

  @Option(
      names = "--fail-on",
      split = ",",
      paramLabel = "STATUS",
      description =
          "exit with 4 when the writer map has a writer of this status: unfenced, inconsistent"
              + " (comma-separated; implies --map)")
  List<String> failOn = new ArrayList<>();

  @Parameters(
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "the command and its arguments, after --, for example: -- java -jar app.jar")
  List<String> command;

  @Override
  public Integer call() throws Exception {
    List<WriterMap.Status> failing = new ArrayList<>();
    for (String s : failOn) {
      if (s.equals(WriterMap.Status.UNFENCED.label())) {
        failing.add(WriterMap.Status.UNFENCED);
      } else if (s.equals(WriterMap.Status.INCONSISTENT.label())) {
        failing.add(WriterMap.Status.INCONSISTENT);
      } else {
        throw new ParameterException(
            spec.commandLine(),
            "--fail-on " + s + " is not allowed: unfenced or inconsistent (comma-separated)");
      }
    }
    Path agentJar = AgentJar.locate();
    Path temporary = report == null ? Files.createTempFile("writer-fence-audit-", ".json") : null;
    Path reportFile = report != null ? report.toAbsolutePath() : temporary;
    try {
      Files.deleteIfExists(reportFile); // an old report must not pass for this run's
      AgentAttachment attachment =
          new AgentAttachment(
              agentJar, enforce ? "enforce" : "log", reportFile, map || !failOn.isEmpty());
      ProcessBuilder child = new ProcessBuilder().inheritIO();
      try {
        child.command(attachment.attach(command, child.environment()));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      int status = run(child);
      return outcome(status, reportFile, failing);
    } finally {
      if (temporary != null) {
        Files.deleteIfExists(temporary);
      }
    }
  }

  private int run(ProcessBuilder child) throws InterruptedException {
    Process process;
    try {
      process = child.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start '" + String.join(" ", command) + "': " + e.getMessage(), e);
    }
    try {
      return process.waitFor();
    } catch (InterruptedException e) {
      process.destroy();
      throw e;
    }
  }

  /** Prints the table, or says why there is none, and picks the exit status. */
  private int outcome(int status, Path reportFile, List<WriterMap.Status> failing)
      throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!Files.isRegularFile(reportFile)) {
      err.println(
          "writer-fence audit: no audit report at "
              + reportFile
              + ": the command started no JVM with the agent, or one was killed before it exited"
              + " (exit status "
              + status
              + ")");
      err.flush();
      return status != 0 ? status : 1;
    }
    AuditReportFile audit = AuditReportFile.read(reportFile);
    out.println();
    out.println(
        "writer-fence audit ("
            + audit.mode()
            + "): "
            + audit.total()
            + (audit.total() == 1 ? " unfenced write" : " unfenced writes")
            + " at "
            + audit.writes().size()
            + (audit.writes().size() == 1 ? " call site" : " call sites")
            + (audit.refused() > 0 ? ", " + audit.refused() + " refused" : "")
            + "; the command exited with "
            + status);
    UnfencedWriteTable.print(out, audit.writes());
    for (String method : audit.annotatedNotFenced()) {
      out.println("annotated but not fenced: @WriterFenced " + method);
    }
    WriterMap writers = WriterMap.of(audit);
    if (map || !failOn.isEmpty()) {
      out.println();
      writers.print(out);
    }
    if (report != null) {
      out.println("report: " + reportFile);
    }
    out.flush();
    if (enforce && audit.refused() > 0) {
      return REFUSED;
    }
    for (WriterMap.Status s : failing) {
      if (writers.has(s)) {
        err.println(
            "writer-fence audit: the writer map has "
                + s.label()
                + " writers (--fail-on "
                + s.label()
                + ")");
        err.flush();
        return MAP_FAILED;
      }
    }
    return status;
  }
}
