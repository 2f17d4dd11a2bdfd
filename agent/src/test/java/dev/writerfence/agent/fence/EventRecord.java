package dev.writerfence.agent.fence;

import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.SectionEvents;
import dev.writerfence.testing.SectionReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The legacy sample's {@code events.log}, read back: one line per entry into or exit from a write,
 * in the order they happened across processes ({@code enter|exit WRITER TOKEN KEY FENCE HOLDER}).
 */
final class EventRecord {
  /** One line of the file. */
  record Event(String kind, String writer, long token, String key, String fence, String holder) {
    static Event parse(String line) {
      String[] f = line.split(" ");
      if (f.length != 6) {
        throw new AssertionError("not an event line: " + line);
      }
      return new Event(f[0], f[1], Long.parseLong(f[2]), f[3], f[4], f[5]);
    }
  }

  private EventRecord() {}

  /**
   * @param bucket the bucket directory
   * @return its events in file order; empty when no write ever began
   */
  static List<Event> read(Path bucket) {
    Path file = bucket.resolve("events.log");
    try {
      return Files.exists(file)
          ? Files.readAllLines(file).stream().map(Event::parse).toList()
          : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Checks the events with the project's one overlap checker: writes never interleave, every write
   * ran under a fencing token, and tokens never go back (a token repeats only within one hold:
   * nested writes of one writer).
   *
   * @param events the events in file order
   * @return what the checker found
   * @throws AssertionError when an exit has no entry before it
   */
  static SectionReport check(List<Event> events) {
    return SectionChecker.checkHolds(
        SectionEvents.sections(
            events.stream()
                .map(
                    e ->
                        new SectionEvents.Event(
                            e.kind().equals("enter"), e.writer(), e.token(), e.key()))
                .toList()));
  }
}
