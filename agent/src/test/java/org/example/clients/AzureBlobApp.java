package org.example.clients;

import static org.example.clients.Writes.attempt;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import java.util.Base64;
import java.util.Map;

/**
 * Azure Blob Storage writes for the audit tests, against a {@link CountingPort} (no Azure server
 * runs here): unfenced writes first (sync and async clients), then the number of connections they
 * made, then fenced writes and reads. Arguments: JDBC URL, fence name.
 */
public final class AzureBlobApp {
  private static final String ACCOUNT = "auditaccount";
  private static final String CONTAINER = "audit-container";

  private final BlobContainerClient container;
  private final BlobContainerAsyncClient asyncContainer;

  private AzureBlobApp(int port) {
    BlobServiceClientBuilder builder =
        new BlobServiceClientBuilder()
            .endpoint("http://127.0.0.1:" + port + "/" + ACCOUNT)
            .credential(
                new StorageSharedKeyCredential(
                    ACCOUNT, Base64.getEncoder().encodeToString(new byte[32])))
            .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, 10, 10L, 10L, null));
    container = builder.buildClient().getBlobContainerClient(CONTAINER);
    asyncContainer = builder.buildAsyncClient().getBlobContainerAsyncClient(CONTAINER);
  }

  public static void main(String[] args) throws Exception {
    try (CountingPort port = new CountingPort()) {
      AzureBlobApp app = new AzureBlobApp(port.port());
      attempt("unfenced/upload", app::unfencedUpload);
      attempt("unfenced/stage-block", app::unfencedStageBlock);
      attempt("unfenced/metadata", app::unfencedMetadata);
      attempt("unfenced/delete", app::unfencedDelete);
      attempt("unfenced/async-upload", app::unfencedAsyncUpload);
      System.out.println("connections " + port.connections());
      Writes.fenced(
          args[0], args[1], () -> attempt("fenced/upload", () -> app.upload("fenced/upload")));
      attempt("reads", app::reads);
    }
    Writes.done();
  }

  private void upload(String name) {
    container.getBlobClient(name).upload(BinaryData.fromString(name), true);
  }

  private void unfencedUpload() {
    upload("unfenced/upload");
  }

  private void unfencedStageBlock() {
    container
        .getBlobClient("unfenced/stage-block")
        .getBlockBlobClient()
        .stageBlock(Base64.getEncoder().encodeToString(new byte[] {1}), BinaryData.fromString("x"));
  }

  private void unfencedMetadata() {
    container.getBlobClient("unfenced/metadata").setMetadata(Map.of("a", "b"));
  }

  private void unfencedDelete() {
    container.getBlobClient("unfenced/delete").delete();
  }

  private void unfencedAsyncUpload() {
    asyncContainer
        .getBlobAsyncClient("unfenced/async-upload")
        .upload(BinaryData.fromString("x"), true)
        .block();
  }

  /** Fail against the port, and are never listed. */
  private void reads() {
    attempt("read/exists", () -> container.getBlobClient("fenced/upload").exists());
    attempt("read/properties", () -> container.getBlobClient("fenced/upload").getProperties());
    attempt("read/list", () -> container.listBlobs().iterator().hasNext());
    attempt("read/download", () -> container.getBlobClient("fenced/upload").downloadContent());
  }
}
