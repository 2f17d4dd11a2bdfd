package dev.writerfence;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The fence's JDK Flight Recorder events: {@value #ACQUIRE_NAME}, {@value #BUSY_NAME}, {@value
 * #HOLD_NAME} and {@value #LOST_NAME}, seen by {@code jcmd <pid> JFR.start} and JDK Mission
 * Control. (JFR allows only Java identifiers between the dots of an event name, so the prefix is
 * {@code writerfence}, not the project's hyphenated name.)
 *
 * <p>They cost nothing until a recording asks for them. The flow asks {@link #AVAILABLE} and {@link
 * FlightRecorder#isInitialized()} (two field reads) before it calls here: until the JVM's recorder
 * was started (by {@code jcmd JFR.start}, {@code -XX:StartFlightRecording} or a {@code Recording}),
 * no event class is loaded or registered, since registering one starts the recorder's metadata (a
 * second or so on a small machine). Once it runs, each method reads its event type's {@link
 * EventType#isEnabled()} and creates an event only when a recording enables it.
 */
final class FenceEvents {
  static final String ACQUIRE_NAME = "writerfence.Acquire";
  static final String BUSY_NAME = "writerfence.Busy";
  static final String HOLD_NAME = "writerfence.Hold";
  static final String LOST_NAME = "writerfence.Lost";

  /** Every event's name. */
  static final List<String> NAMES = List.of(ACQUIRE_NAME, BUSY_NAME, HOLD_NAME, LOST_NAME);

  /**
   * Whether the runtime has the {@code jdk.jfr} module (a jlink image may not): when {@code false},
   * nothing here may be called.
   */
  static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

  private FenceEvents() {}

  /** The event types, registered on first use, once the recorder runs; {@code null}: no JFR. */
  private static final class Types {
    static final EventType ACQUIRE = type(AcquireEvent.class);
    static final EventType BUSY = type(BusyEvent.class);
    static final EventType HOLD = type(HoldEvent.class);
    static final EventType LOST = type(LostEvent.class);

    private static EventType type(Class<? extends Event> event) {
      try {
        FlightRecorder.register(event);
        return EventType.getEventType(event);
      } catch (RuntimeException | LinkageError e) { // JFR not supported here: record nothing
        return null;
      }
    }

    static boolean enabled(EventType type) {
      return type != null && type.isEnabled();
    }
  }

  /**
   * Commits a {@value #ACQUIRE_NAME} event, when recorded.
   *
   * @param attempts statements sent, at least 1
   * @param startNanos when the call began ({@link System#nanoTime()})
   * @param place the call's place in the queue at its first answer; 0 when it never queued
   */
  static void acquired(HeldLease held, int attempts, long startNanos, int place) {
    if (!Types.enabled(Types.ACQUIRE)) {
      return;
    }
    AcquireEvent e = new AcquireEvent();
    if (e.shouldCommit()) {
      e.of(held);
      e.attempts = attempts;
      e.wait = System.nanoTime() - startNanos;
      e.place = place;
      e.commit();
    }
  }

  /**
   * Commits a {@value #BUSY_NAME} event, when recorded.
   *
   * @param holder the holder seen after the last attempt, if any
   */
  static void busy(
      String fenceName,
      String label,
      int attempts,
      Duration waited,
      int place,
      int waiters,
      Optional<LeaseStatus> holder) {
    if (!Types.enabled(Types.BUSY)) {
      return;
    }
    BusyEvent e = new BusyEvent();
    if (e.shouldCommit()) {
      e.fenceName = fenceName;
      e.holder = label;
      e.heldBy = holder.map(LeaseStatus::holderLabel).orElse(null);
      e.attempts = attempts;
      e.wait = waited.toNanos();
      e.place = place;
      e.waiters = waiters;
      e.commit();
    }
  }

  /**
   * Begins a {@value #HOLD_NAME} event at the grant; {@link #held} ends it.
   *
   * @return the begun event, or {@code null} when no recording enables it
   */
  static Object hold() {
    if (!Types.enabled(Types.HOLD)) {
      return null;
    }
    HoldEvent e = new HoldEvent();
    e.begin();
    return e;
  }

  /**
   * Ends a hold begun by {@link #hold}, once.
   *
   * @param begun what {@link #hold} returned (typed {@code Object}, so that a class that keeps it
   *     loads no event class)
   * @param end {@code released} or {@code lost}
   */
  static void held(Object begun, HeldLease held, String end) {
    HoldEvent e = (HoldEvent) begun;
    e.end();
    if (e.shouldCommit()) {
      e.of(held);
      e.end = end;
      e.commit();
    }
  }

  /** Commits a {@value #LOST_NAME} event, when recorded. */
  static void lost(HeldLease held, String reason) {
    if (!Types.enabled(Types.LOST)) {
      return;
    }
    LostEvent e = new LostEvent();
    if (e.shouldCommit()) {
      e.of(held);
      e.reason = reason;
      e.commit();
    }
  }

  /** The fields every event of a lease has. */
  @Category({"writer-fence"})
  abstract static class LeaseEvent extends Event {
    @Label("Fence Name")
    String fenceName;

    @Label("Fencing Token")
    @Description("The lease's fencing token (its timeline in the high bits), 0 when not known")
    long fencingToken;

    @Label("Holder")
    @Description("The holder label as the lease row shows it, its instance part included")
    String holder;

    /** Fills the fields of the lease. */
    final void of(HeldLease held) {
      fenceName = held.fenceName();
      fencingToken = held.fencingToken();
      holder = held.holderLabel();
    }
  }

  @Name(ACQUIRE_NAME)
  @Label("Fence Acquired")
  @Description("A fenced call won its lease; wait is from the call's start to the lease")
  @StackTrace(false)
  static final class AcquireEvent extends LeaseEvent {
    @Label("Wait")
    @Timespan(Timespan.NANOSECONDS)
    long wait;

    @Label("Attempts")
    int attempts;

    @Label("Place")
    @Description("Its place in the queue at its first answer (1 is the head); 0 if it never queued")
    int place;
  }

  @Name(BUSY_NAME)
  @Label("Fence Busy")
  @Description("A fenced call refused busy after its last attempt; the guarded code did not run")
  @Category({"writer-fence"})
  static final class BusyEvent extends Event {
    @Label("Fence Name")
    String fenceName;

    @Label("Holder")
    @Description("The label the refused call asked with")
    String holder;

    @Label("Held By")
    @Description("The holder seen after the last attempt, if any")
    String heldBy;

    @Label("Wait")
    @Timespan(Timespan.NANOSECONDS)
    long wait;

    @Label("Attempts")
    int attempts;

    @Label("Place")
    @Description("Its place in the queue at the last answer (1 is the head); 0 if it never queued")
    int place;

    @Label("Waiters")
    int waiters;
  }

  @Name(HOLD_NAME)
  @Label("Fence Held")
  @Description("A lease held: the event's duration is from its grant to its release or loss")
  @StackTrace(false)
  static final class HoldEvent extends LeaseEvent {
    @Label("End")
    @Description("released or lost")
    String end;
  }

  @Name(LOST_NAME)
  @Label("Fence Lost")
  @Description("A held lease was lost: expired or taken over, or not confirmed within its TTL")
  @StackTrace(false)
  static final class LostEvent extends LeaseEvent {
    @Label("Reason")
    String reason;
  }
}
