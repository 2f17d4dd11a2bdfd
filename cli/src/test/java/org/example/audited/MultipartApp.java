package org.example.audited;

import dev.writerfence.cli.audit.LocalS3;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * One multipart upload through the sync client, outside any fence, run in its own JVM: a create,
 * three parts and a complete, each from a line of its own. Prints {@code uploaded} or {@code
 * refused NAME} (enforce mode).
 *
 * <p>Arguments: S3 endpoint, bucket (created by the test).
 */
public final class MultipartApp {
  /** The key it uploads. */
  public static final String KEY = "multipart/big.bin";

  /** S3's smallest part but the last. */
  private static final int PART = 5 * 1024 * 1024;

  private MultipartApp() {}

  public static void main(String[] args) {
    String bucket = args[1];
    try (S3Client s3 = LocalS3.client(URI.create(args[0]))) {
      String upload = s3.createMultipartUpload(c -> c.bucket(bucket).key(KEY)).uploadId();
      List<CompletedPart> parts = new ArrayList<>();
      for (int n = 1; n <= 3; n++) {
        int number = n;
        byte[] bytes = new byte[n < 3 ? PART : 1];
        String etag =
            s3.uploadPart(
                    p -> p.bucket(bucket).key(KEY).uploadId(upload).partNumber(number),
                    RequestBody.fromBytes(bytes))
                .eTag();
        parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
      }
      s3.completeMultipartUpload(
          c -> c.bucket(bucket).key(KEY).uploadId(upload).multipartUpload(m -> m.parts(parts)));
      System.out.println("uploaded");
    } catch (RuntimeException e) {
      System.out.println("refused " + e.getClass().getSimpleName());
    }
    System.out.flush();
  }
}
