package dev.writerfence.agent.audit.s3v2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.agent.audit.WriteTarget;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.transfer.s3.model.UploadDirectoryRequest;
import software.amazon.awssdk.transfer.s3.model.UploadRequest;

/** What the audit reads from the AWS SDK v2's requests as a write's bucket and key. */
class AwsS3V2AuditTest {
  private final AwsS3V2Audit audit = new AwsS3V2Audit();

  @Test
  void anUploadDirectorysKeyIsItsPrefixNotAnOptional() {
    UploadDirectoryRequest request =
        UploadDirectoryRequest.builder().bucket("b").s3Prefix("u-dir").source(Path.of(".")).build();

    assertThat(audit.describe(request)).isEqualTo(new WriteTarget("b", "u-dir"));
  }

  @Test
  void anUploadDirectoryWithoutPrefixWritesAtTheBucketsRoot() {
    UploadDirectoryRequest request =
        UploadDirectoryRequest.builder().bucket("b").source(Path.of(".")).build();

    assertThat(audit.describe(request)).isEqualTo(new WriteTarget("b", null));
  }

  @Test
  void aTransferManagerUploadNamesTheRequestItWraps() {
    UploadRequest request =
        UploadRequest.builder()
            .putObjectRequest(PutObjectRequest.builder().bucket("b").key("k").build())
            .requestBody(AsyncRequestBody.fromString("x"))
            .build();

    assertThat(audit.describe(request)).isEqualTo(new WriteTarget("b", "k"));
  }
}
