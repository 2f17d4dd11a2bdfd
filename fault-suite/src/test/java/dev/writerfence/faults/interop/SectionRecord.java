package dev.writerfence.faults.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one record every leg appends to, a line {@code start HOLDER ROUND} after it took the lease
 * and {@code end HOLDER ROUND} before it releases, each with one write on an {@code O_APPEND} file,
 * so the file's order is the order the writers wrote in. Under exclusion every {@code start} is
 * followed by the {@code end} of the same holder and round before any other line.
 */
final class SectionRecord {
  private final Path file;

  SectionRecord(Path file) {
    this.file = file;
  }

  Path file() {
    return file;
  }

  /** Appends one line in one write, as the other legs do. */
  void append(String event, String holder, int round) {
    try {
      Files.writeString(
          file,
          event + " " + holder + " " + round + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Checks the record: no section overlaps another, and every section ended.
   *
   * @return the sections per holder
   * @throws AssertionError naming the first line that breaks exclusion
   */
  Map<String, Integer> sectionsPerHolder() throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    Map<String, Integer> sections = new TreeMap<>();
    String open = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String[] parts = line.split(" ");
      if (parts.length != 3 || !(parts[0].equals("start") || parts[0].equals("end"))) {
        throw new AssertionError("line " + (i + 1) + " is not a record line: " + line);
      }
      String section = parts[1] + " " + parts[2];
      if (parts[0].equals("start")) {
        if (open != null) {
          throw new AssertionError(
              "line " + (i + 1) + ": " + section + " started while " + open + " still held it");
        }
        open = section;
      } else {
        if (!section.equals(open)) {
          throw new AssertionError(
              "line " + (i + 1) + ": " + section + " ended while " + open + " was the holder");
        }
        sections.merge(parts[1], 1, Integer::sum);
        open = null;
      }
    }
    if (open != null) {
      throw new AssertionError(open + " never ended");
    }
    return sections;
  }
}
