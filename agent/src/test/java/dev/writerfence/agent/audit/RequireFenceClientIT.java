package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.testing.ForkedJvm;
import java.util.List;
import org.example.clients.FileWritesApp;
import org.junit.jupiter.api.Test;

/**
 * {@code audit.require-fence.<client>} names a registered client: a typo ({@code gsc} for {@code
 * gcs}) would leave GCS writes to any fence, so the real agent stops the JVM before {@code main},
 * naming the bad id and the known ones.
 */
class RequireFenceClientIT {
  @Test
  void anUnknownClientStopsTheStartNamingTheKnownClients() throws Exception {
    AuditApp app =
        AuditApp.launch(
            ForkedJvm.javaBinary(),
            FileWritesApp.class.getName(),
            List.of("audit.mode=enforce", "audit.require-fence.gsc=corpus"),
            "unused");

    assertThat(app.exitCode()).as(app.errors()).isEqualTo(1);
    assertThat(app.output()).as("main never ran").isEmpty();
    assertThat(app.errors())
        .contains("unknown setting 'audit.require-fence.gsc'")
        .contains("'gsc' is no known client of audit.require-fence.<client>")
        .contains("known clients: " + String.join(", ", SettingsCatalog.AUDIT_CLIENTS))
        .contains("the JVM does not start");
  }

  @Test
  void aKnownClientStarts() throws Exception {
    AuditApp app =
        AuditApp.launch(
            ForkedJvm.javaBinary(),
            ExitingApp.class.getName(),
            List.of("audit.mode=enforce", "audit.require-fence.gcs=corpus"));

    assertThat(app.exitCode()).as(app.errors()).isZero();
    assertThat(app.output()).containsExactly("ran");
  }

  /** A main that only says it ran. */
  public static final class ExitingApp {
    private ExitingApp() {}

    public static void main(String[] args) {
      System.out.println("ran");
    }
  }
}
