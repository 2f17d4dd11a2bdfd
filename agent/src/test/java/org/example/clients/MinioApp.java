package org.example.clients;

import static org.example.clients.Writes.attempt;

import io.minio.BucketExistsArgs;
import io.minio.CopyObjectArgs;
import io.minio.CopySource;
import io.minio.GetObjectArgs;
import io.minio.ListObjectsArgs;
import io.minio.MinioAsyncClient;
import io.minio.MinioClient;
import io.minio.PutObjectArgs;
import io.minio.RemoveObjectArgs;
import io.minio.Result;
import io.minio.StatObjectArgs;
import io.minio.messages.Item;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/**
 * MinIO client writes for the audit tests: the sync and the async client, inside and outside a
 * fence, then reads. Arguments: endpoint, JDBC URL, fence name, bucket (created by the test),
 * access key, secret key.
 */
public final class MinioApp {
  private final MinioClient sync;
  private final MinioAsyncClient async;
  private final String bucket;

  private MinioApp(String endpoint, String bucket, String keyId, String secret) {
    this.bucket = bucket;
    this.sync =
        MinioClient.builder()
            .endpoint(endpoint)
            .region("us-east-1")
            .credentials(keyId, secret)
            .build();
    this.async =
        MinioAsyncClient.builder()
            .endpoint(endpoint)
            .region("us-east-1")
            .credentials(keyId, secret)
            .build();
  }

  public static void main(String[] args) throws Exception {
    MinioApp app = new MinioApp(args[0], args[3], args[4], args[5]);
    Writes.fenced(
        args[1],
        args[2],
        () -> {
          attempt("fenced/put", () -> app.sync.putObject(app.put("fenced/put")));
          attempt(
              "fenced/async",
              () -> app.async.putObject(app.put("fenced/async")).get(30, TimeUnit.SECONDS));
        });
    attempt("unfenced/put", app::unfencedPut);
    attempt("unfenced/async", app::unfencedAsync);
    attempt("unfenced/copy", app::unfencedCopy);
    attempt("unfenced/remove", app::unfencedRemove);
    attempt("reads", app::reads);
    app.sync.close();
    app.async.close();
    Writes.done();
  }

  private PutObjectArgs put(String key) {
    byte[] body = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return PutObjectArgs.builder().bucket(bucket).object(key).stream(
            new ByteArrayInputStream(body), body.length, -1)
        .build();
  }

  private void unfencedPut() throws Exception {
    sync.putObject(put("unfenced/put"));
  }

  private void unfencedAsync() throws Exception {
    async.putObject(put("unfenced/async")).get(30, TimeUnit.SECONDS);
  }

  private void unfencedCopy() throws Exception {
    sync.copyObject(
        CopyObjectArgs.builder()
            .bucket(bucket)
            .object("unfenced/copy")
            .source(CopySource.builder().bucket(bucket).object("fenced/put").build())
            .build());
  }

  private void unfencedRemove() throws Exception {
    sync.removeObject(RemoveObjectArgs.builder().bucket(bucket).object("fenced/async").build());
  }

  /** Never listed. */
  private void reads() throws Exception {
    sync.statObject(StatObjectArgs.builder().bucket(bucket).object("fenced/put").build());
    try (InputStream in =
        sync.getObject(GetObjectArgs.builder().bucket(bucket).object("fenced/put").build())) {
      in.readAllBytes();
    }
    for (Result<Item> item : sync.listObjects(ListObjectsArgs.builder().bucket(bucket).build())) {
      item.get();
    }
    sync.bucketExists(BucketExistsArgs.builder().bucket(bucket).build());
  }
}
