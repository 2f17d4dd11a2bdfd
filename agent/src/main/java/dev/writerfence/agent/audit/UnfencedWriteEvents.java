package dev.writerfence.agent.audit;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * The audit's JDK Flight Recorder event {@value #NAME}: one per unfenced write the audit judged
 * (log and enforce mode), with where it went and where it came from. Like core's fence events it
 * costs nothing until the JVM's recorder runs: {@link AuditRecorder} asks {@link #AVAILABLE} and
 * {@link FlightRecorder#isInitialized()} before it calls here, so no event class is loaded or
 * registered before then (registering one starts the recorder's metadata).
 */
final class UnfencedWriteEvents {
  /** The event's name (JFR allows no hyphen in it). */
  static final String NAME = "writerfence.UnfencedWrite";

  /** Whether the runtime has the {@code jdk.jfr} module: when {@code false}, do not call here. */
  static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

  private UnfencedWriteEvents() {}

  /** The event type, registered on first use; {@code null} where JFR is not supported. */
  private static final class Type {
    static final EventType UNFENCED = type();

    private static EventType type() {
      try {
        FlightRecorder.register(UnfencedWriteEvent.class);
        return EventType.getEventType(UnfencedWriteEvent.class);
      } catch (RuntimeException | LinkageError e) {
        return null;
      }
    }
  }

  /**
   * Commits one event, when a recording enables it.
   *
   * @param client the storage client id
   * @param operation the operation
   * @param target the bucket and key
   * @param row its call site and the fence it requires
   * @param refused whether the write was refused (enforce mode)
   */
  static void commit(
      String client, String operation, WriteTarget target, SiteWrites row, boolean refused) {
    if (Type.UNFENCED == null || !Type.UNFENCED.isEnabled()) {
      return;
    }
    UnfencedWriteEvent e = new UnfencedWriteEvent();
    if (e.shouldCommit()) {
      e.client = client;
      e.operation = operation;
      e.bucket = target.bucket();
      e.key = target.key();
      e.callSite = row.callSite;
      e.fenceName = row.requiredFence;
      e.refused = refused;
      e.commit();
    }
  }

  @Name(NAME)
  @Label("Unfenced Write")
  @Description("A storage write the audit found without a valid lease on the fence it requires")
  @Category({"writer-fence"})
  static final class UnfencedWriteEvent extends Event {
    @Label("Client")
    @Description("The storage client, for example aws-s3-v2 or file")
    String client;

    @Label("Operation")
    String operation;

    @Label("Bucket")
    String bucket;

    @Label("Key")
    @Description("The object key or path, when known")
    String key;

    @Label("Call Site")
    @Description("The application frame that made the write")
    String callSite;

    @Label("Fence Name")
    @Description("The fence name the write must hold, or null for any")
    String fenceName;

    @Label("Refused")
    @Description("Whether the write was refused (enforce mode)")
    boolean refused;
  }
}
