package dev.writerfence.benchmarks.measure;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What one contention run stands for: who the contenders are ({@link Contenders}) and how each
 * tries ({@link Mode}). Names the JMH parameters and every file of the run, so the report can tell
 * the shapes apart.
 *
 * @param contenders threads of one process, or stand-ins for separate writer processes
 * @param mode one try without pause, or the fence's own call with its busy retry
 */
public record ContentionShape(Contenders contenders, Mode mode) {

  /** Who contends for the one name. */
  public enum Contenders {
    /**
     * Threads of one service: one backend instance (one pool, one WriterFence, one registry) shared
     * by all of them, as a process is meant to use it.
     */
    THREADS("threads", "threads of one process (one backend shared by all)"),
    /**
     * Each thread stands for a writer process: a backend instance of its own with a small pool, so
     * nothing in the JVM arbitrates between them and only the database decides.
     */
    PROCESSES("processes", "stand-ins for separate processes (one backend per thread)");

    private final String id;
    private final String label;

    Contenders(String id, String label) {
      this.id = id;
      this.label = label;
    }

    /**
     * @return the JMH parameter value, e.g. {@code threads}
     */
    public String id() {
      return id;
    }

    /**
     * @param id {@code threads} or {@code processes}
     * @return the value
     * @throws IllegalArgumentException naming the value and the allowed ones
     */
    public static Contenders of(String id) {
      return byId(Contenders.class, "contenders", id, Contenders::id);
    }
  }

  /** How each contender tries. */
  public enum Mode {
    /** One attempt that never waits; released at once when taken; again without pause. */
    TRY("try", "one try, again without pause"),
    /**
     * What a writer does: the fence's own high-level call ({@code WriterFence.run}) with its
     * default busy retry; busy is the call's {@code WriterFenceBusyException} after the whole
     * schedule.
     */
    RETRY("retry", "WriterFence.run with its default busy retry");

    private final String id;
    private final String label;

    Mode(String id, String label) {
      this.id = id;
      this.label = label;
    }

    /**
     * @return the JMH parameter value, e.g. {@code retry}
     */
    public String id() {
      return id;
    }

    /**
     * @param id {@code try} or {@code retry}
     * @return the value
     * @throws IllegalArgumentException naming the value and the allowed ones
     */
    public static Mode of(String id) {
      return byId(Mode.class, "mode", id, Mode::id);
    }
  }

  /**
   * @param contenders {@code threads} or {@code processes}
   * @param mode {@code try} or {@code retry}
   * @return the shape
   * @throws IllegalArgumentException naming a value that is not one of the allowed ones
   */
  public static ContentionShape of(String contenders, String mode) {
    return new ContentionShape(Contenders.of(contenders), Mode.of(mode));
  }

  /**
   * @return e.g. {@code threads-try}, as it appears in file names
   */
  public String id() {
    return contenders.id + "-" + mode.id;
  }

  /**
   * @return e.g. {@code threads / try}, for table headings and target names
   */
  public String shortLabel() {
    return contenders.id + " / " + mode.id;
  }

  /**
   * @return what the shape measures, in words
   */
  public String label() {
    return contenders.label + "; " + mode.label;
  }

  /**
   * @param threads contenders
   * @return the JMH result file of this shape at {@code threads}, e.g. {@code
   *     contention-threads-try-t64.json}
   */
  public String jmhFile(int threads) {
    return "contention-" + id() + "-t" + threads + ".json";
  }

  /**
   * @param backend the backend id
   * @param threads contenders
   * @return the {@link ContentionRecord} file, e.g. {@code contention-lease-threads-try-t64.json}
   */
  public String recordFile(String backend, int threads) {
    return "contention-" + backend + "-" + id() + "-t" + threads + ".json";
  }

  private static <E extends Enum<E>> E byId(
      Class<E> type, String what, String id, Function<E, String> idOf) {
    for (E e : type.getEnumConstants()) {
      if (idOf.apply(e).equals(id)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        what
            + " '"
            + id
            + "' is not known: one of "
            + Arrays.stream(type.getEnumConstants()).map(idOf).collect(Collectors.joining(", ")));
  }
}
