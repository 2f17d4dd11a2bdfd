package org.example.audited;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.cli.audit.LocalS3;
import dev.writerfence.testing.WriterProcess;
import io.awspring.cloud.s3.S3Template;
import java.io.ByteArrayInputStream;
import java.net.URI;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * One bucket's writers, for the plain table and the odd fence name, run in its own JVM: {@code
 * spread} writes {@link #SPREAD_WRITES} distinct keys from one line with no fence (more keys than
 * the sample holds), {@code upload} writes {@link #VIA_KEY} through Spring Cloud AWS's {@code
 * S3Template} with no fence (a wrapper frame beside the call site); {@code load} and {@code merge}
 * write under fence A, {@code prune} under fence B: the odd one out.
 *
 * <p>Arguments: S3 endpoint, JDBC URL, fence A, fence B, the bucket (created by the test).
 */
public final class SpreadApp {
  /** How many distinct keys {@code spread} writes: one more than the agent's sample of five. */
  public static final int SPREAD_WRITES = 6;

  /** The key written through {@code S3Template}. */
  public static final String VIA_KEY = "via/upload.bin";

  private SpreadApp() {}

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    try (S3Client s3 = LocalS3.client(endpoint);
        S3Presigner presigner = LocalS3.presigner(endpoint);
        WriterFence fence = WriterFence.builder(WriterProcess.unpooled(args[1])).build()) {
      write(s3, MappedApp.template(s3, presigner), fence, args[2], args[3], args[4]);
    }
  }

  private static void write(
      S3Client s3, S3Template template, WriterFence fence, String a, String b, String bucket) {
    for (int i = 1; i <= SPREAD_WRITES; i++) {
      spread(s3, bucket, "spread/" + i + ".json");
    }
    upload(template, bucket);
    fence.run(FenceRequest.builder(a).holderLabel("load").build(), () -> load(s3, bucket));
    fence.run(FenceRequest.builder(a).holderLabel("merge").build(), () -> merge(s3, bucket));
    fence.run(FenceRequest.builder(b).holderLabel("prune").build(), () -> prune(s3, bucket));
  }

  private static void spread(S3Client s3, String bucket, String key) {
    s3.putObject(p -> p.bucket(bucket).key(key), RequestBody.fromString("{}"));
  }

  private static void upload(S3Template template, String bucket) {
    template.upload(bucket, VIA_KEY, new ByteArrayInputStream(new byte[] {1}), null);
  }

  private static void load(S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key("load.json"), RequestBody.fromString("{}"));
  }

  private static void merge(S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key("merge.json"), RequestBody.fromString("{}"));
  }

  private static void prune(S3Client s3, String bucket) {
    s3.deleteObject(d -> d.bucket(bucket).key("load.json"));
  }
}
