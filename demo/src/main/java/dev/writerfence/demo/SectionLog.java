package dev.writerfence.demo;

import com.fasterxml.jackson.databind.MappingIterator;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A writer's record: one JSON line per critical section, flushed as it is written. */
final class SectionLog implements AutoCloseable {
  private final BufferedWriter out;

  private SectionLog(BufferedWriter out) {
    this.out = out;
  }

  static SectionLog create(Path file) throws IOException {
    return new SectionLog(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
  }

  /**
   * @param section appended as one line, flushed at once
   */
  synchronized void append(SectionRecord section) {
    try {
      out.write(Json.MAPPER.writeValueAsString(section));
      out.newLine();
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }

  /**
   * @param file a record written by {@link #append}
   * @return its sections, in file order
   * @throws IOException when it cannot be read or a line is not a section
   */
  static List<SectionRecord> read(Path file) throws IOException {
    if (Files.size(file) == 0) {
      return List.of();
    }
    try (MappingIterator<SectionRecord> it =
        Json.MAPPER.readerFor(SectionRecord.class).readValues(file.toFile())) {
      return it.readAll();
    }
  }
}
