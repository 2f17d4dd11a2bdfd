package dev.writerfence.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The folder of one demo run. The command and the writer processes find each other's files by the
 * names given here: each writer's record ({@code <label>.sections.jsonl}), summary ({@code
 * <label>.summary.json}) and output ({@code <label>.log}), and the embedded PostgreSQL's log.
 */
final class RunFolder {
  private final Path root;

  /**
   * @param root the folder
   */
  RunFolder(Path root) {
    this.root = root;
  }

  /**
   * @return a new, empty folder among the temporary files
   * @throws IOException when it cannot be created
   */
  static RunFolder createTemporary() throws IOException {
    return new RunFolder(Files.createTempDirectory("writer-fence-demo-"));
  }

  /**
   * @return the folder itself
   */
  Path root() {
    return root;
  }

  /**
   * @param label a writer's holder label
   * @return the record of that writer's critical sections, one JSON line each
   */
  Path sectionsFile(String label) {
    return root.resolve(label + ".sections.jsonl");
  }

  /**
   * @param label a writer's holder label
   * @return the summary that writer writes when it ends
   */
  Path summaryFile(String label) {
    return root.resolve(label + ".summary.json");
  }

  /**
   * @param label a writer's holder label
   * @return that writer process's stdout and stderr
   */
  Path writerLog(String label) {
    return root.resolve(label + ".log");
  }

  /**
   * @param label a writer's holder label, or the legacy writer's
   * @return the agent's audit report that writer's JVM writes when it exits
   */
  Path auditReport(String label) {
    return root.resolve(label + ".audit.json");
  }

  /**
   * @return the embedded PostgreSQL's log
   */
  Path databaseLog() {
    return root.resolve("postgres.log");
  }

  /**
   * Deletes the folder with everything in it; a folder that cannot be walked (gone, or not
   * readable) is left as it is.
   *
   * @throws UncheckedIOException when a file in it cannot be deleted
   */
  void delete() {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(RunFolder::deleteFile);
    } catch (IOException e) {
      // a temporary folder left behind is no failure of the demo
    }
  }

  private static void deleteFile(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
