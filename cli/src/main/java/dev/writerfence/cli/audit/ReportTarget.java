package dev.writerfence.cli.audit;

import dev.writerfence.internal.audit.AuditReportDocument;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Where {@code audit --report PATH -- COMMAND} keeps the agents' reports. The agents always write
 * one report per JVM ({@link AuditReports#PER_JVM}, ADR 59) into a directory; PATH says whether
 * that directory is kept, or whether the reports are combined into one file:
 *
 * <ul>
 *   <li>a <b>file</b> when PATH ends in {@code .json} (any case) or is an existing regular file:
 *       the JVMs' reports go to a temporary directory and are written, combined, to PATH ({@link
 *       #combine});
 *   <li>a <b>directory</b> otherwise: an existing directory, a PATH ending in {@code /}, or any
 *       other PATH (created), which keeps the per-JVM reports.
 * </ul>
 *
 * @param path the file or directory, absolute
 * @param file whether the reports are combined into the one file {@code path}
 */
record ReportTarget(Path path, boolean file) {
  /** Never {@code null}. */
  ReportTarget {
    Objects.requireNonNull(path, "path");
  }

  /**
   * @param value the {@code --report} value as given (a trailing {@code /} asks for a directory)
   * @return where the reports go
   * @throws IllegalArgumentException when the value asks for a directory ({@code /} at its end) but
   *     names an existing file, naming it
   */
  static ReportTarget of(String value) {
    Path path = Path.of(value).toAbsolutePath().normalize();
    boolean slash = value.endsWith("/") || value.endsWith(path.getFileSystem().getSeparator());
    if (Files.isDirectory(path)) {
      return new ReportTarget(path, false);
    }
    if (slash) {
      if (Files.exists(path)) {
        throw new IllegalArgumentException(
            "--report '"
                + value
                + "' ends in '/', a directory for the reports (one per JVM, "
                + AuditReports.PER_JVM
                + "), but is a file; give the file without '/' to write the combined report there");
      }
      return new ReportTarget(path, false);
    }
    boolean json = path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
    return new ReportTarget(path, json || Files.isRegularFile(path));
  }

  /**
   * Before the run: makes the directory (removing the per-JVM reports of an earlier run from it),
   * or the file's directory (removing the file), so that an old report never passes for this run's.
   * Other files are left alone.
   *
   * @throws IOException when a directory cannot be made or a report removed
   */
  void prepare() throws IOException {
    if (file) {
      Files.createDirectories(path.getParent());
      Files.deleteIfExists(path);
      return;
    }
    Files.createDirectories(path);
    for (Path old : AuditReports.perJvmReports(path)) {
      Files.delete(old);
    }
  }

  /**
   * Writes the reports of several JVMs as one report (pretty-printed UTF-8 JSON, the agent's shape,
   * so that {@code audit --report FILE} judges it later as it judged them), replacing the file in
   * one move. Its rows are every report's, in order (a call site written by two JVMs has a row from
   * each; judging adds them up); {@code total_unfenced_writes} is their sum; {@code map} is true
   * only when every report recorded fenced writes; {@code mode} is the reports' modes,
   * comma-separated when they differ; {@code pid} and {@code written_at} are the combining JVM's
   * and now.
   *
   * @param reports the per-JVM report files, at least one
   * @param target the file to write
   * @throws IOException when a report cannot be read, or the file not written
   */
  static void combine(List<Path> reports, Path target) throws IOException {
    List<AuditReportDocument.Row> unfenced = new ArrayList<>();
    List<AuditReportDocument.Row> fenced = new ArrayList<>();
    List<AuditReportDocument.AnnotatedNotFenced> annotated = new ArrayList<>();
    TreeSet<String> modes = new TreeSet<>();
    String agent = null;
    boolean map = true;
    long total = 0;
    for (Path f : reports) {
      AuditReportDocument r = AuditReportDocument.read(f);
      agent = agent != null ? agent : r.agent();
      modes.add(String.valueOf(r.mode()));
      map &= r.map();
      unfenced.addAll(r.unfencedWrites());
      fenced.addAll(r.fencedWrites());
      r.annotatedNotFenced().stream().filter(a -> !annotated.contains(a)).forEach(annotated::add);
      total += r.totalUnfencedWrites();
    }
    AuditReportDocument combined =
        new AuditReportDocument(
            agent,
            String.join(",", modes),
            Instant.now(),
            ProcessHandle.current().pid(),
            map,
            unfenced,
            total,
            fenced,
            annotated);
    Path partial = Files.createTempFile(target.getParent(), ".audit-", ".json.part");
    try {
      try (OutputStream out = Files.newOutputStream(partial)) {
        combined.write(out);
      }
      Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
  }
}
