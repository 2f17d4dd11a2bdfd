package dev.writerfence.demo;

import java.net.URI;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The demo's legacy writer: a program that knows nothing of writer-fence and writes one object with
 * a plain S3 client, holding no fence. The demo runs it with the agent in audit log mode, which
 * lists that write. Arguments: endpoint, access key, secret key, bucket, object key.
 */
public final class LegacyWriter {
  private LegacyWriter() {}

  /**
   * @param args endpoint, access key, secret key, bucket, object key
   */
  public static void main(String[] args) {
    if (args.length != 5) {
      System.err.println("usage: LegacyWriter ENDPOINT ACCESS_KEY SECRET_KEY BUCKET KEY");
      System.exit(2);
    }
    try (S3Client s3 = S3Clients.create(URI.create(args[0]), args[1], args[2])) {
      export(s3, args[3], args[4]);
    }
    System.out.println("wrote " + args[3] + "/" + args[4]);
  }

  // The call site the audit names: one write, on purpose outside any fence.
  private static void export(S3Client s3, String bucket, String key) {
    s3.putObject(
        b -> b.bucket(bucket).key(key).contentType("application/json"),
        RequestBody.fromString("{\"export\":\"nightly\"}"));
  }
}
