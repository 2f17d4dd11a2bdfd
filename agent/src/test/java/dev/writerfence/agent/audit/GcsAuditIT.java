package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.file.Path;
import java.util.List;
import org.example.clients.GcsApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Google Cloud Storage: {@link GcsApp} in its own JVM with the real agent and a fence in the
 * embedded PostgreSQL.
 *
 * <p>No GCS server runs here (there is no local emulator on this machine, and the client speaks
 * only to its own API), so the client points at a port on 127.0.0.1 that accepts each connection,
 * counts it and closes it: every request fails, and the count shows whether one was sent. That is
 * enough for what the audit decides, which happens before any request: in enforce mode the unfenced
 * writes are refused with no connection made; in log mode they are listed although the requests
 * then fail; reads (which fail too) and the fenced write are never listed.
 */
class GcsAuditIT {
  private static final String BUCKET = "audit-bucket";

  @TempDir Path dir;

  @Test
  void logListsTheUnfencedWritesThoughTheRequestsFail() throws Exception {
    ClientApp app = run("log");

    assertThat(app.output())
        .contains("failed unfenced/create", "failed unfenced/writer", "failed unfenced/delete")
        .doesNotContain("connections 0");
    assertThat(app.listed())
        .as(app.report().toPrettyString())
        .containsExactlyInAnyOrder(
            tuple("gcs", "create", BUCKET, "unfenced/create", 1L),
            tuple("gcs", "writer", BUCKET, "unfenced/writer", 1L),
            tuple("gcs", "delete", BUCKET, "unfenced/delete", 1L),
            tuple("gcs", "update", BUCKET, "unfenced/update", 1L),
            tuple("gcs", "copy", BUCKET, "unfenced/copy", 1L));
    app.assertEachWriteFrom(GcsApp.class.getName(), 0);
  }

  @Test
  void enforceRefusesTheUnfencedWritesBeforeAnyConnection() throws Exception {
    ClientApp app = run("enforce");

    assertThat(app.output())
        .contains(
            "refused unfenced/create",
            "refused unfenced/writer",
            "refused unfenced/delete",
            "refused unfenced/update",
            "refused unfenced/copy",
            "connections 0",
            "failed fenced/create", // let through: it reached the port and failed there
            "failed read/get");
    assertThat(app.writes()).hasSize(5);
    app.assertEachWriteFrom(GcsApp.class.getName(), 1);
  }

  private ClientApp run(String mode) throws Exception {
    return ClientApp.run(
        GcsApp.class.getName(),
        dir.resolve(mode + ".json"),
        List.of("audit.mode=" + mode),
        EmbeddedDatabase.get().jdbcUrl(),
        FenceNames.random("gcs"));
  }
}
