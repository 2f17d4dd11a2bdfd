package dev.writerfence.demo;

import dev.writerfence.cli.audit.AuditReportFile;
import dev.writerfence.cli.audit.WriterMap;
import dev.writerfence.cli.audit.WriterMapPicture;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The writer acquisition map of the demo's bucket, as {@code writer-fence audit --map} draws it:
 * built with the CLI's {@link WriterMap} from the agent reports of every writer process and of the
 * legacy writer, judged together, then cut to the bucket.
 *
 * <p>The map is checked as well as shown: a writer of the bucket that holds no fence, or another
 * fence name than the run's, fails the run, and so does a writer process that wrote objects but is
 * missing from the map (its holder label, {@code label@host:pid}, names it there).
 *
 * @param bucket the demo's bucket
 * @param map the writers of that bucket alone
 * @param failures what is wrong with the map, empty when it is what the fence promises
 */
record DemoWriterMap(String bucket, WriterMap map, List<String> failures) {
  /**
   * @param results the writer processes, ended
   * @param folder the run folder holding their reports ({@link RunFolder#auditReport})
   * @param bucket the demo's bucket
   * @param fenceName the fence every writer of the bucket must hold
   * @return the map and what is wrong with it
   */
  static DemoWriterMap read(
      List<WriterResult> results, RunFolder folder, String bucket, String fenceName) {
    List<String> failures = new ArrayList<>();
    List<AuditReportFile> reports = new ArrayList<>();
    List<WriterResult> reported = new ArrayList<>();
    for (WriterResult r : results) {
      String problem = read(folder.auditReport(r.writer()), reports);
      if (problem == null) {
        reported.add(r);
      } else {
        failures.add(
            "writer " + r.writer() + " " + problem + "; its log: " + folder.writerLog(r.writer()));
      }
    }
    // The legacy writer writes another bucket; its report is read so that the map would show it
    // here if it did not. Its absence is a failure of LegacyResult's.
    read(folder.auditReport(LegacyProcess.LABEL), reports);
    WriterMap map = WriterMap.of(reports).only(bucket);
    for (WriterMap.Writer w : map.writers()) {
      if (w.status() != WriterMap.Status.FENCED || !fenceName.equals(w.fenceName())) {
        failures.add(
            "the writer map of bucket "
                + bucket
                + " has a writer "
                + w.status().label()
                + (w.fenceName() == null ? "" : " under fence '" + w.fenceName() + "'")
                + " at "
                + w.callSite()
                + (w.holderLabel() == null ? "" : " as " + w.holderLabel()));
      }
    }
    for (WriterResult r : reported) {
      boolean mapped =
          map.writers().stream()
              .anyMatch(
                  w -> w.holderLabel() != null && w.holderLabel().startsWith(r.writer() + "@"));
      if (r.objects() > 0 && !mapped) {
        failures.add(
            "the writer map of bucket "
                + bucket
                + " lacks writer "
                + r.writer()
                + ", which wrote "
                + r.objects()
                + " objects");
      }
    }
    return new DemoWriterMap(bucket, map, List.copyOf(failures));
  }

  /**
   * Writes the map's picture ({@link WriterMapPicture}), replacing the file.
   *
   * @param file a {@code .html} file for the page, a {@code .mmd} one for the Mermaid text
   * @throws IOException when it cannot be written
   * @throws IllegalArgumentException when its name ends otherwise
   */
  void writePicture(Path file) throws IOException {
    String format = pictureFormat(file);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (PrintWriter out =
        new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), false)) {
      new WriterMapPicture(map).write(format, out);
    }
  }

  /**
   * @param file where the picture goes
   * @return {@code html} or {@code mermaid}, from its name
   * @throws IllegalArgumentException when the name ends neither in {@code .html} nor {@code .mmd}
   */
  static String pictureFormat(Path file) {
    String name = file.getFileName() == null ? "" : file.getFileName().toString();
    if (name.endsWith(".html")) {
      return "html";
    }
    if (name.endsWith(".mmd")) {
      return "mermaid";
    }
    throw new IllegalArgumentException(
        "--map-file '"
            + file
            + "' is not allowed: a name ending in .html (a page) or .mmd (Mermaid text)");
  }

  /**
   * Adds the report at {@code file} to {@code reports}.
   *
   * @return {@code null} when read, else why not
   */
  private static String read(Path file, List<AuditReportFile> reports) {
    if (!Files.isRegularFile(file)) {
      return "left no audit report at " + file;
    }
    try {
      reports.add(AuditReportFile.read(file));
      return null;
    } catch (IOException e) {
      return "left an unreadable audit report: " + e.getMessage();
    }
  }
}
