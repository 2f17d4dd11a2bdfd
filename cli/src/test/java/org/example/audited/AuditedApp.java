package org.example.audited;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.cli.audit.LocalS3;
import dev.writerfence.testing.WriterProcess;
import java.net.URI;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A storage application for the {@code audit} command's tests, run in its own JVM: one write inside
 * a fence, two outside (a put and a delete, each from a method of its own, so each has its own call
 * site), and a read. Prints {@code wrote KEY} or {@code refused KEY} per write, then exits with the
 * status it was given.
 *
 * <p>Arguments: S3 endpoint, JDBC URL, fence name, bucket (created by the test), exit status.
 */
public final class AuditedApp {
  /** The key of the write inside the fence. */
  public static final String FENCED = "fenced/report.json";

  /** The key of the unfenced put. */
  public static final String UNFENCED_PUT = "unfenced/put.json";

  /** The key of the unfenced delete (which need not exist). */
  public static final String UNFENCED_DELETE = "unfenced/stale.json";

  private AuditedApp() {}

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    String fenceName = args[2];
    String bucket = args[3];
    int status = Integer.parseInt(args[4]);
    try (S3Client s3 = LocalS3.client(endpoint);
        WriterFence fence = WriterFence.builder(WriterProcess.unpooled(args[1])).build()) {
      fence.run(FenceRequest.of(fenceName), () -> attempt(FENCED, () -> put(s3, bucket, FENCED)));
      attempt(UNFENCED_PUT, () -> unfencedPut(s3, bucket));
      attempt(UNFENCED_DELETE, () -> unfencedDelete(s3, bucket));
      s3.headObject(h -> h.bucket(bucket).key(FENCED)); // a read: never listed
    }
    System.out.flush();
    System.exit(status);
  }

  private static void unfencedPut(S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key(UNFENCED_PUT), RequestBody.fromString("{}"));
  }

  private static void unfencedDelete(S3Client s3, String bucket) {
    s3.deleteObject(d -> d.bucket(bucket).key(UNFENCED_DELETE));
  }

  private static void put(S3Client s3, String bucket, String key) {
    s3.putObject(p -> p.bucket(bucket).key(key), RequestBody.fromString("{}"));
  }

  /** Runs one write; a write the agent refuses (enforce mode) is printed, not thrown. */
  private static void attempt(String key, Runnable write) {
    try {
      write.run();
      System.out.println("wrote " + key);
    } catch (RuntimeException e) {
      System.out.println("refused " + key + " " + e.getClass().getSimpleName());
    }
  }
}
