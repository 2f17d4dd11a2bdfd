package org.example.clients;

import static org.example.clients.Writes.attempt;

import com.amazonaws.auth.AWSStaticCredentialsProvider;
import com.amazonaws.auth.BasicAWSCredentials;
import com.amazonaws.client.builder.AwsClientBuilder.EndpointConfiguration;
import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.AmazonS3ClientBuilder;
import com.amazonaws.services.s3.transfer.TransferManager;
import com.amazonaws.services.s3.transfer.TransferManagerBuilder;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * AWS SDK v1 writes for the audit tests: {@code AmazonS3Client} overloads that take text and the
 * transfer manager's multipart upload, inside and outside a fence, then reads. Arguments: endpoint,
 * JDBC URL, fence name, bucket (created by the test), access key, secret key.
 */
public final class AwsS3V1App {
  private final AmazonS3 s3;
  private final TransferManager transfers;
  private final String bucket;
  private final File bigFile;

  private AwsS3V1App(String endpoint, String bucket, String keyId, String secret) throws Exception {
    this.bucket = bucket;
    this.s3 =
        AmazonS3ClientBuilder.standard()
            .withEndpointConfiguration(new EndpointConfiguration(endpoint, "us-east-1"))
            .withPathStyleAccessEnabled(true)
            .withChunkedEncodingDisabled(true)
            .withCredentials(
                new AWSStaticCredentialsProvider(new BasicAWSCredentials(keyId, secret)))
            .build();
    this.transfers =
        TransferManagerBuilder.standard()
            .withS3Client(s3)
            .withMultipartUploadThreshold(5L << 20)
            .withMinimumUploadPartSize(5L << 20)
            .build();
    Path file = Files.createTempFile("s3v1-app-", ".bin");
    file.toFile().deleteOnExit();
    Files.write(file, new byte[11 << 20]); // three parts: a multipart upload
    this.bigFile = file.toFile();
  }

  public static void main(String[] args) throws Exception {
    AwsS3V1App app = new AwsS3V1App(args[0], args[3], args[4], args[5]);
    Writes.fenced(
        args[1],
        args[2],
        () -> {
          attempt("fenced/put", () -> app.s3.putObject(app.bucket, "fenced/put", "fenced"));
          attempt("fenced/transfer", () -> app.transfer("fenced/transfer"));
        });
    attempt("unfenced/put", app::unfencedPut);
    attempt("unfenced/copy", app::unfencedCopy);
    attempt("unfenced/delete", app::unfencedDelete);
    attempt("unfenced/transfer", app::unfencedTransfer);
    attempt("reads", app::reads);
    app.transfers.shutdownNow(true);
    Writes.done();
  }

  private void unfencedPut() {
    s3.putObject(bucket, "unfenced/put", "unfenced");
  }

  private void unfencedCopy() {
    s3.copyObject(bucket, "fenced/put", bucket, "unfenced/copy");
  }

  private void unfencedDelete() {
    s3.deleteObject(bucket, "fenced/transfer");
  }

  private void unfencedTransfer() throws Exception {
    transfer("unfenced/transfer");
  }

  private void transfer(String key) throws Exception {
    transfers.upload(bucket, key, bigFile).waitForCompletion();
  }

  /** Never listed. */
  private void reads() throws Exception {
    s3.getObjectAsString(bucket, "fenced/put");
    s3.getObjectMetadata(bucket, "fenced/put");
    s3.listObjectsV2(bucket);
    s3.doesObjectExist(bucket, "fenced/put");
  }
}
