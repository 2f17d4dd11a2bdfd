package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.file.Path;
import java.util.List;
import org.example.clients.AzureBlobApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Azure Blob Storage: {@link AzureBlobApp} in its own JVM with the real agent and a fence in the
 * embedded PostgreSQL, through the sync clients and an async client.
 *
 * <p>No Azure server runs here (Azurite is a Node.js program that this machine does not have), so
 * the clients point at a port on 127.0.0.1 that accepts each connection, counts it and closes it:
 * every request fails, and the count shows whether one was sent. That is enough for what the audit
 * decides, which happens before any request: in enforce mode the unfenced writes are refused with
 * no connection made; in log mode they are listed although the requests then fail, the async upload
 * once (its {@code Mono} calls {@code uploadWithResponse} when subscribed); reads (which fail too)
 * and the fenced write are never listed.
 */
class AzureBlobAuditIT {
  private static final String CONTAINER = "audit-container";

  @TempDir Path dir;

  @Test
  void logListsTheUnfencedWritesThoughTheRequestsFail() throws Exception {
    ClientApp app = run("log");

    assertThat(app.output())
        .contains("failed unfenced/upload", "failed unfenced/async-upload")
        .doesNotContain("connections 0");
    assertThat(app.listed())
        .as(app.report().toPrettyString())
        .containsExactlyInAnyOrder(
            tuple("azure-blob", "upload", CONTAINER, "unfenced/upload", 1L),
            tuple("azure-blob", "stageBlock", CONTAINER, "unfenced/stage-block", 1L),
            tuple("azure-blob", "setMetadata", CONTAINER, "unfenced/metadata", 1L),
            tuple("azure-blob", "delete", CONTAINER, "unfenced/delete", 1L),
            tuple("azure-blob", "upload", CONTAINER, "unfenced/async-upload", 1L));
    app.assertEachWriteFrom(AzureBlobApp.class.getName(), 0);
  }

  @Test
  void enforceRefusesTheUnfencedWritesBeforeAnyConnection() throws Exception {
    ClientApp app = run("enforce");

    assertThat(app.output())
        .contains(
            "refused unfenced/upload",
            "refused unfenced/stage-block",
            "refused unfenced/metadata",
            "refused unfenced/delete",
            "refused unfenced/async-upload",
            "connections 0");
    assertThat(app.output()).contains("failed fenced/upload");
    assertThat(app.writes()).hasSize(5);
    app.assertEachWriteFrom(AzureBlobApp.class.getName(), 1);
  }

  private ClientApp run(String mode) throws Exception {
    return ClientApp.run(
        AzureBlobApp.class.getName(),
        dir.resolve(mode + ".json"),
        List.of("audit.mode=" + mode),
        EmbeddedDatabase.get().jdbcUrl(),
        FenceNames.random("azure"));
  }
}
