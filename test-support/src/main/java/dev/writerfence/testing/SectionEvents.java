package dev.writerfence.testing;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sections read from one log of entry and exit events written in the order they happened (a journal
 * file that every writer appends to), for {@link SectionChecker}. An event's time is its position
 * in the log, as that many nanoseconds after the epoch: the log's order is the only clock it has.
 */
public final class SectionEvents {
  /**
   * One line of such a log.
   *
   * @param entry {@code true} for an entry into a section, {@code false} for the exit from one
   * @param writer who entered or left; never {@code null}
   * @param fencingToken the fencing token it wrote under (0 or less: none)
   * @param key what the section wrote, or {@code ""} when the log does not say; an exit belongs to
   *     the entry of the same writer, token and key
   */
  public record Event(boolean entry, String writer, long fencingToken, String key) {
    /** Checks the writer and key are there. */
    public Event {
      Objects.requireNonNull(writer, "writer");
      Objects.requireNonNull(key, "key");
    }

    /**
     * @return an entry of {@code writer} under {@code fencingToken}, the log not saying what it
     *     wrote
     */
    public static Event entry(String writer, long fencingToken) {
      return new Event(true, writer, fencingToken, "");
    }

    /**
     * @return the exit matching {@link #entry(String, long)}
     */
    public static Event exit(String writer, long fencingToken) {
      return new Event(false, writer, fencingToken, "");
    }
  }

  private record Open(Event entry, int position) {}

  private SectionEvents() {}

  /**
   * Pairs each exit with the latest open entry of the same writer, token and key. An entry never
   * left (its writer died inside) stays open to the end of the log, so every later entry overlaps
   * it.
   *
   * @param events the log in order; never {@code null}
   * @return one section per entry, in order of entry
   * @throws AssertionError when an exit has no open entry: the log is not a record of sections
   */
  public static List<Section> sections(List<Event> events) {
    List<Section> sections = new ArrayList<>();
    // Per writer, token and key, the entries not left yet, the latest first.
    Map<Event, Deque<Open>> open = new HashMap<>();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      Event asEntry = new Event(true, e.writer(), e.fencingToken(), e.key());
      if (e.entry()) {
        open.computeIfAbsent(asEntry, k -> new ArrayDeque<>()).push(new Open(e, i));
      } else {
        Deque<Open> entered = open.getOrDefault(asEntry, new ArrayDeque<>());
        if (entered.isEmpty()) {
          throw new AssertionError("event " + (i + 1) + ", " + e + ", leaves no open section");
        }
        sections.add(section(entered.pop(), i));
      }
    }
    open.values()
        .forEach(unclosed -> unclosed.forEach(o -> sections.add(section(o, events.size()))));
    sections.sort(Comparator.comparing(Section::enteredAt));
    return sections;
  }

  private static Section section(Open open, int exitPosition) {
    return new Section(
        open.entry().writer(),
        open.entry().fencingToken(),
        Instant.EPOCH.plusNanos(open.position()),
        Instant.EPOCH.plusNanos(exitPosition));
  }
}
