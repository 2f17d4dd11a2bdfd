package org.example.clients;

import static org.example.clients.Writes.attempt;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Google Cloud Storage writes for the audit tests, against a {@link CountingPort} (no GCS server
 * runs here): unfenced writes first, then the number of connections they made, then fenced writes
 * and reads. Arguments: JDBC URL, fence name.
 */
public final class GcsApp {
  private static final String BUCKET = "audit-bucket";

  private final Storage storage;

  private GcsApp(int port) {
    storage =
        StorageOptions.http()
            .setHost("http://127.0.0.1:" + port)
            .setProjectId("audit-test")
            .setCredentials(NoCredentials.getInstance())
            .setRetrySettings(RetrySettings.newBuilder().setMaxAttempts(1).build())
            .build()
            .getService();
  }

  public static void main(String[] args) throws Exception {
    try (CountingPort port = new CountingPort()) {
      GcsApp app = new GcsApp(port.port());
      attempt("unfenced/create", app::unfencedCreate);
      attempt("unfenced/writer", app::unfencedWriter);
      attempt("unfenced/delete", app::unfencedDelete);
      attempt("unfenced/update", app::unfencedUpdate);
      attempt("unfenced/copy", app::unfencedCopy);
      System.out.println("connections " + port.connections());
      Writes.fenced(
          args[0], args[1], () -> attempt("fenced/create", () -> app.create("fenced/create")));
      attempt("reads", app::reads);
    }
    Writes.done();
  }

  private void create(String name) {
    storage.create(blob(name), name.getBytes(StandardCharsets.UTF_8));
  }

  private void unfencedCreate() {
    create("unfenced/create");
  }

  private void unfencedWriter() throws Exception {
    try (WritableByteChannel channel = storage.writer(blob("unfenced/writer"))) {
      channel.write(ByteBuffer.wrap(new byte[] {1}));
    }
  }

  private void unfencedDelete() {
    storage.delete(BUCKET, "unfenced/delete");
  }

  private void unfencedUpdate() {
    storage.update(blob("unfenced/update").toBuilder().setMetadata(Map.of("a", "b")).build());
  }

  private void unfencedCopy() {
    storage.copy(
        Storage.CopyRequest.of(BUCKET, "fenced/create", BlobId.of(BUCKET, "unfenced/copy")));
  }

  /** Fail against the port, and are never listed. */
  private void reads() {
    attempt("read/get", () -> storage.get(BlobId.of(BUCKET, "fenced/create")));
    attempt("read/list", () -> storage.list(BUCKET));
    attempt("read/bytes", () -> storage.readAllBytes(BlobId.of(BUCKET, "fenced/create")));
    attempt(
        "read/reader",
        () -> storage.reader(BlobId.of(BUCKET, "fenced/create")).read(ByteBuffer.allocate(1)));
  }

  private static BlobInfo blob(String name) {
    return BlobInfo.newBuilder(BUCKET, name).build();
  }
}
