package dev.writerfence.cli.audit;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence audit [--report FILE.json|DIR] [--enforce] [--map] [--format F] [--fail-on S]
 * -- COMMAND...}: runs a Java command with the agent attached in audit mode ({@link
 * AgentAttachment}), each JVM it starts writing its own report ({@link AuditReports#PER_JVM}),
 * waits for it, then judges all the reports together: the unfenced writes as a table ({@link
 * UnfencedWriteTable}), the writer map ({@link WriterMap}), as a table or a picture ({@link
 * WriterMapPicture}). {@code --report} keeps them, in a directory or combined into one file ({@link
 * ReportTarget}). Without a command, {@code --report FILE|DIR...} judges reports written before.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run a Java command with the writer-fence agent in audit mode, then list its unfenced"
          + " writes: storage writes made while the writing thread held no fence. Without a"
          + " command, judge reports written before (--report).",
      "",
      "A command starting with java gets -javaagent and the audit settings right after java;"
          + " any other command (a script, mvn) gets them through JAVA_TOOL_OPTIONS, after its"
          + " existing value. Every JVM writes its own report, audit-<pid>.json, and all are"
          + " judged together. The command inherits this terminal.",
      ""
    },
    exitCodeListHeading = "%nExit status (the first that applies):%n",
    exitCodeList = {
      "2:bad input; nothing was started",
      "1:the command could not be started, or it left no audit report",
      "3:--enforce, and the agent refused at least one write",
      "4:--fail-on, and the writer map has a writer of that status",
      "5:--fail-on, and no write was seen at all: nothing was judged",
      "N:otherwise the command's own exit status (0 when judging reports)"
    })
public final class AuditCommand implements Callable<Integer> {
  /** The exit status when enforce mode refused a write. */
  public static final int REFUSED = 3;

  /** The exit status when the writer map has a writer of a status {@code --fail-on} names. */
  public static final int MAP_FAILED = 4;

  /** The exit status of {@code --fail-on} when the reports hold no write at all. */
  public static final int NOTHING_SEEN = 5;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--report",
      paramLabel = "PATH",
      description = {
        "with a command, where its reports go (default: a temporary directory, deleted): a PATH"
            + " ending in .json, or an existing file, gets one report of all its JVMs (replaced"
            + " on each run); any other PATH (an existing directory, DIR/, a new name) is a"
            + " directory, created, with one audit-<pid>.json per JVM (those of an earlier run"
            + " deleted first)",
        "without a command: judge these reports, files or directories of .json reports"
            + " (repeatable)"
      })
  List<String> reports = new ArrayList<>();

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
      names = "--format",
      paramLabel = "KIND",
      description =
          "how the writer map is printed: text (the default: a table per bucket), mermaid (a"
              + " flowchart: buckets, fence names, writers coloured by status) or html (a page"
              + " with that flowchart and the table; no fetch needed to read it). mermaid and"
              + " html imply --map and print the picture alone on stdout, so it can be"
              + " redirected to a file; the summary and the unfenced writes go to stderr")
  String format = "text";

  @Option(
      names = "--fail-on",
      split = ",",
      paramLabel = "STATUS",
      description =
          "exit with 4 when the writer map has a writer of this status: unfenced, inconsistent"
              + " (comma-separated; implies --map); exit with 5 when no write was seen at all")
  List<String> failOn = new ArrayList<>();

  @Parameters(
      arity = "0..*",
      paramLabel = "COMMAND",
      description = "the command and its arguments, after --, for example: -- java -jar app.jar")
  List<String> command = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<WriterMap.Status> failing = failing();
    if (!format.equals("text") && !WriterMapPicture.FORMATS.contains(format)) {
      throw bad("--format '" + format + "' is not allowed: text, mermaid or html");
    }
    if (command.isEmpty()) {
      return judgeOnly(failing);
    }
    if (reports.size() > 1) {
      throw bad(
          "with a command, give at most one --report: a FILE.json for one report of all the"
              + " JVMs, or a directory for one report per JVM");
    }
    ReportTarget target;
    try {
      target = reports.isEmpty() ? null : ReportTarget.of(reports.get(0));
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
    Path agentJar = AgentJar.locate();
    if (target != null) {
      target.prepare();
    }
    boolean temporary = target == null || target.file();
    Path directory = temporary ? Files.createTempDirectory("writer-fence-audit-") : target.path();
    try {
      AgentAttachment attachment =
          new AgentAttachment(
              agentJar,
              enforce ? "enforce" : "log",
              directory.resolve(AuditReports.PER_JVM),
              mapped());
      ProcessBuilder child = new ProcessBuilder().inheritIO();
      try {
        child.command(attachment.attach(command, child.environment()));
      } catch (IllegalArgumentException e) {
        throw bad(e.getMessage());
      }
      int status = run(child);
      List<Path> written = AuditReports.perJvmReports(directory);
      if (written.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "writer-fence audit: no audit report in "
                    + directory
                    + ": the command started no JVM with the agent, or each was killed before it"
                    + " exited (exit status "
                    + status
                    + ")");
        spec.commandLine().getErr().flush();
        return status != 0 ? status : 1;
      }
      List<Path> kept = written;
      if (target != null && target.file()) {
        ReportTarget.combine(written, target.path());
        kept = List.of(target.path());
      }
      return outcome(status, AuditReports.read(written), failing, kept);
    } finally {
      if (temporary) {
        deleteTemporary(directory);
      }
    }
  }

  /** Judges reports written before, by a run of this command or of {@code -javaagent} itself. */
  private int judgeOnly(List<WriterMap.Status> failing) throws IOException {
    if (reports.isEmpty()) {
      throw bad(
          "missing required parameter: 'COMMAND' (-- COMMAND to run one, or --report FILE|DIR"
              + " to judge reports written before)");
    }
    if (enforce) {
      throw bad("--enforce needs a command to run: reports written before are only judged");
    }
    List<Path> files;
    try {
      files = AuditReports.find(reports.stream().map(Path::of).toList());
    } catch (IllegalArgumentException e) {
      throw bad(e.getMessage());
    }
    return outcome(null, AuditReports.read(files), failing, files);
  }

  /** Whether fenced writes are recorded and the map printed: asked for, or implied. */
  private boolean mapped() {
    return map || !failOn.isEmpty() || !format.equals("text");
  }

  private List<WriterMap.Status> failing() {
    List<WriterMap.Status> failing = new ArrayList<>();
    for (String s : failOn) {
      WriterMap.Status status =
          Stream.of(WriterMap.Status.UNFENCED, WriterMap.Status.INCONSISTENT)
              .filter(t -> t.label().equals(s))
              .findFirst()
              .orElseThrow(
                  () ->
                      bad(
                          "--fail-on '"
                              + s
                              + "' is not allowed: unfenced or inconsistent (comma-separated)"));
      if (!failing.contains(status)) {
        failing.add(status);
      }
    }
    return failing;
  }

  private static void deleteTemporary(Path directory) throws IOException {
    if (Files.isDirectory(directory)) {
      for (Path f : AuditReports.perJvmReports(directory)) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(directory);
    }
  }

  private ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
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

  /**
   * Prints the table and the map of all the reports, and picks the exit status.
   *
   * @param status the command's exit status, {@code null} when only judging reports
   * @param kept the reports that stay after the command ({@code report:} lines), none without
   *     {@code --report}
   */
  private int outcome(
      Integer status, AuditReports audit, List<WriterMap.Status> failing, List<Path> kept) {
    boolean picture = !format.equals("text");
    // A picture is stdout's only content, so that it can be redirected into its file.
    PrintWriter out = picture ? spec.commandLine().getErr() : spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    WriterMap writers = audit.map();
    List<WriterMap.Status> found = failing.stream().filter(writers::has).toList();
    boolean nothing = audit.noWriteSeen();
    int exit =
        enforce && audit.refused() > 0
            ? REFUSED
            : !found.isEmpty()
                ? MAP_FAILED
                : !failing.isEmpty() && nothing ? NOTHING_SEEN : status == null ? 0 : status;
    out.println();
    out.println(summary(audit, status, exit));
    UnfencedWriteTable.print(out, audit.writes());
    for (String method : audit.annotatedNotFenced()) {
      out.println("annotated but not fenced: @WriterFenced " + method);
    }
    if (picture) {
      new WriterMapPicture(writers).write(format, spec.commandLine().getOut());
    } else if (mapped()) {
      out.println();
      writers.print(out);
    }
    if (!reports.isEmpty()) {
      kept.forEach(f -> out.println("report: " + f));
    }
    out.flush();
    if (nothing) {
      err.println(
          "writer-fence audit: warning: no write seen in "
              + plural(audit.files().size(), "report")
              + ", fenced or not: the JVMs used no audited storage client, their file writes"
              + " were outside audit.paths (is it set?), or they ran without the agent"
              + (audit.someWithoutMap() ? "; a report without audit.map lists no fenced write" : "")
              + (failing.isEmpty()
                  ? ""
                  : " (--fail-on: nothing judged, exit " + NOTHING_SEEN + ")"));
    }
    if (!found.isEmpty()) {
      List<String> labels = found.stream().map(WriterMap.Status::label).toList();
      err.println(
          "writer-fence audit: the writer map has "
              + String.join(" and ", labels)
              + " writers (--fail-on "
              + String.join(",", labels)
              + ")");
    }
    err.flush();
    return exit;
  }

  /**
   * The summary line; when the audit's own exit status replaces the command's non-zero one, it says
   * so, since the exit status alone then hides the command's.
   */
  private static String summary(AuditReports audit, Integer status, int exit) {
    int sites = audit.writes().size();
    int files = audit.files().size();
    String line =
        "writer-fence audit ("
            + audit.mode()
            + "): "
            + plural(audit.total(), "unfenced write")
            + " at "
            + plural(sites, "call site")
            + (files > 1 ? " in " + files + " reports" : "")
            + (audit.refused() > 0 ? ", " + audit.refused() + " refused" : "");
    if (status == null) {
      return line;
    }
    line += "; the command exited with " + status;
    return exit != status && status != 0
        ? line + "; the audit exits with " + exit + " instead, which comes first"
        : line;
  }

  private static String plural(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
