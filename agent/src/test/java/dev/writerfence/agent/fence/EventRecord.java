package dev.writerfence.agent.fence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
   * Checks that writes never interleave: every entry is followed by the exit of the same writer and
   * fencing token before any other entry, every write ran under a fencing token, and tokens never
   * go back (a token repeats only within one hold: nested writes of one writer).
   *
   * @param events the events in file order
   * @return one line per violation; empty when one writer at a time wrote
   */
  static List<String> violations(List<Event> events) {
    List<String> violations = new ArrayList<>();
    Event open = null;
    Event lastExit = null;
    for (Event e : events) {
      if (e.token() <= 0) {
        violations.add("written without a fence: " + e);
      }
      if (e.kind().equals("enter")) {
        if (open != null) {
          violations.add("overlap: " + e + " entered while " + open + " was inside");
        }
        if (lastExit != null
            && (e.token() < lastExit.token()
                || (e.token() == lastExit.token() && !e.writer().equals(lastExit.writer())))) {
          violations.add("token order: " + lastExit + " then " + e);
        }
        open = e;
      } else {
        if (open == null
            || !open.writer().equals(e.writer())
            || open.token() != e.token()
            || !open.key().equals(e.key())) {
          violations.add("exit without its entry: " + e + " (inside: " + open + ")");
        }
        open = null;
        lastExit = e;
      }
    }
    return violations;
  }
}
