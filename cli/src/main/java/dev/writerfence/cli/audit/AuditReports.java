package dev.writerfence.cli.audit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The agent's reports of one audit, one per JVM, judged together: a script or {@code mvn verify}
 * starts several JVMs, and each writes its own report ({@code audit-<pid>.json}), so that none
 * overwrites another's and an empty report of a JVM that wrote nothing hides nobody's writes.
 *
 * @param files the report files, in the order read
 * @param reports their contents, in the same order
 */
public record AuditReports(List<Path> files, List<AuditReportFile> reports) {
  /** The file name pattern of the per-JVM reports the audit command asks the agent for. */
  public static final String PER_JVM = "audit-{pid}.json";

  /** As many keys as the agent keeps per call site. */
  private static final int KEY_SAMPLE = 5;

  /**
   * @param directory a directory the audit command gave the agent
   * @return its per-JVM reports ({@code audit-<digits>.json}), sorted by name; empty when none
   * @throws IOException when the directory cannot be listed
   */
  public static List<Path> perJvmReports(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files
          .filter(f -> f.getFileName().toString().matches("audit-\\d+\\.json"))
          .filter(Files::isRegularFile)
          .sorted()
          .toList();
    }
  }

  /**
   * Finds the reports behind {@code --report} values given without a command.
   *
   * @param paths report files, or directories whose {@code *.json} files are all reports
   * @return the report files, absolute, each once, each directory's sorted by name
   * @throws IllegalArgumentException when a path does not exist, or a directory holds no {@code
   *     .json} file, naming it
   * @throws IOException when a directory cannot be listed
   */
  public static List<Path> find(List<Path> paths) throws IOException {
    List<Path> found = new ArrayList<>();
    for (Path path : paths) {
      if (Files.isDirectory(path)) {
        List<Path> json;
        try (Stream<Path> files = Files.list(path)) {
          json =
              files
                  .filter(f -> f.getFileName().toString().endsWith(".json"))
                  .filter(Files::isRegularFile)
                  .sorted()
                  .toList();
        }
        if (json.isEmpty()) {
          throw new IllegalArgumentException(
              "--report '" + path + "' is a directory with no .json report in it");
        }
        found.addAll(json);
      } else if (Files.isRegularFile(path)) {
        found.add(path);
      } else {
        throw new IllegalArgumentException(
            "--report '" + path + "' does not exist: give report files or directories of them");
      }
    }
    // A report named twice (a file and its directory, say) is judged once: its counts not doubled.
    return found.stream().map(f -> f.toAbsolutePath().normalize()).distinct().toList();
  }

  /**
   * @param files report files
   * @return their reports
   * @throws IOException when one cannot be read or is no report, naming it
   */
  public static AuditReports read(List<Path> files) throws IOException {
    List<AuditReportFile> reports = new ArrayList<>();
    for (Path f : files) {
      reports.add(AuditReportFile.read(f));
    }
    return new AuditReports(List.copyOf(files), List.copyOf(reports));
  }

  /**
   * @return the agents' modes, comma-separated when the reports differ
   */
  public String mode() {
    TreeSet<String> modes = new TreeSet<>();
    reports.forEach(r -> modes.add(String.valueOf(r.mode())));
    return String.join(",", modes);
  }

  /**
   * The unfenced writes of every report, a call site's rows of several JVMs merged into one: counts
   * and refusals added, keys sampled as the agent samples them (five, then {@code moreKeys}),
   * thread and key of the first report.
   *
   * @return one row per client, operation, bucket, call site and wrapper frame
   */
  public List<UnfencedWriteRow> writes() {
    Map<List<String>, UnfencedWriteRow> merged = new LinkedHashMap<>();
    for (AuditReportFile report : reports) {
      for (UnfencedWriteRow r : report.writes()) {
        List<String> site = new ArrayList<>();
        Stream.of(r.client(), r.operation(), r.bucket(), r.callSite(), r.libraryCall())
            .forEach(site::add);
        merged.merge(site, r, AuditReports::merge);
      }
    }
    return List.copyOf(merged.values());
  }

  private static UnfencedWriteRow merge(UnfencedWriteRow a, UnfencedWriteRow b) {
    List<String> keys = new ArrayList<>(a.keys());
    boolean more = a.moreKeys() || b.moreKeys();
    for (String k : b.keys()) {
      if (!keys.contains(k)) {
        if (keys.size() < KEY_SAMPLE) {
          keys.add(k);
        } else {
          more = true;
        }
      }
    }
    return new UnfencedWriteRow(
        a.client(),
        a.operation(),
        a.bucket(),
        a.key(),
        a.callSite(),
        a.thread(),
        a.count() + b.count(),
        a.refused() + b.refused(),
        List.copyOf(keys),
        more,
        a.libraryCall());
  }

  /**
   * @return the unfenced writes of every report
   */
  public long total() {
    return reports.stream().mapToLong(AuditReportFile::total).sum();
  }

  /**
   * @return the writes enforce mode refused, in every report
   */
  public long refused() {
    return reports.stream().mapToLong(AuditReportFile::refused).sum();
  }

  /**
   * @return every report's {@code @WriterFenced} methods that wrote unfenced, each once
   */
  public List<String> annotatedNotFenced() {
    return reports.stream().flatMap(r -> r.annotatedNotFenced().stream()).distinct().toList();
  }

  /**
   * @return the writer map of all the reports together
   */
  public WriterMap map() {
    return WriterMap.of(reports);
  }

  /**
   * @return whether no report holds any write, fenced or not
   */
  public boolean noWriteSeen() {
    return reports.stream().allMatch(r -> r.writes().isEmpty() && r.fenced().isEmpty());
  }

  /**
   * @return whether some report was written without {@code audit.map}, so without its fenced writes
   */
  public boolean someWithoutMap() {
    return reports.stream().anyMatch(r -> !r.map());
  }
}
