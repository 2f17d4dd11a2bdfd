package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.s3.AmazonS3Client;
import com.amazonaws.services.s3.transfer.TransferManager;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.specialized.BlobClientBase;
import com.azure.storage.blob.specialized.BlockBlobClient;
import dev.writerfence.agent.audit.azure.AzureBlobAudit;
import dev.writerfence.agent.audit.gcs.GcsAudit;
import dev.writerfence.agent.audit.minio.MinioAudit;
import dev.writerfence.agent.audit.s3v1.AwsS3V1Audit;
import io.minio.MinioAsyncClient;
import io.minio.MinioClient;
import java.util.Set;
import java.util.TreeSet;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

/**
 * Default-deny over the real client classes: what each instrumentation takes for a write, read from
 * the SDK jars on the test class path. Writes a new SDK version adds are caught because every
 * method not named as a read counts; these tests pin the reads and plumbing that must not.
 */
class ClientWriteMatchersTest {
  @Test
  void awsSdkV1CountsItsWritesButNotItsReadsOrPlumbing() {
    Set<String> writes = writes(AmazonS3Client.class, AwsS3V1Audit.writes());

    assertThat(writes)
        .contains(
            "putObject",
            "copyObject",
            "deleteObject",
            "deleteObjects",
            "initiateMultipartUpload",
            "uploadPart",
            "completeMultipartUpload",
            "setObjectTagging",
            "createBucket",
            "restoreObjectV2")
        .doesNotContain(
            "getObject",
            "getObjectMetadata",
            "listObjectsV2",
            "doesObjectExist",
            "headBucket",
            "selectObjectContent",
            "generatePresignedUrl",
            "isRequesterPaysEnabled",
            "setEndpoint",
            "setRegion",
            "setS3ClientOptions",
            "shutdown",
            "waiters");
    assertThat(writes(TransferManager.class, AwsS3V1Audit.writes()))
        .containsExactlyInAnyOrder(
            "upload",
            "uploadDirectory",
            "uploadFileList",
            "copy",
            "abortMultipartUploads",
            "resumeUpload");
  }

  @Test
  void minioCountsEveryOperationThatIsNotARead() {
    for (Class<?> client : new Class<?>[] {MinioClient.class, MinioAsyncClient.class}) {
      assertThat(writes(client, MinioAudit.writes()))
          .contains(
              "putObject",
              "uploadObject",
              "copyObject",
              "composeObject",
              "removeObject",
              "removeObjects",
              "makeBucket",
              "setObjectTags",
              "uploadSnowballObjects")
          .doesNotContain(
              "getObject",
              "statObject",
              "listObjects",
              "bucketExists",
              "downloadObject",
              "selectObjectContent",
              "isObjectLegalHoldEnabled",
              "listenBucketNotification",
              "getPresignedObjectUrl");
    }
    assertThat(writes(MinioClient.class, MinioAudit.writes()))
        .doesNotContain("setTimeout", "traceOn", "traceOff", "setAppInfo", "ignoreCertCheck");
  }

  @Test
  void gcsCountsWritesOpenedAsChannelsToo() throws Exception {
    Class<?> impl = Class.forName("com.google.cloud.storage.StorageImpl");

    assertThat(writes(impl, GcsAudit.writes()))
        .contains(
            "create",
            "createFrom",
            "writer",
            "delete",
            "copy",
            "compose",
            "update",
            "restore",
            "blobWriteSession")
        .doesNotContain("get", "list", "reader", "readAllBytes", "signUrl", "testIamPermissions");
  }

  @Test
  void azureCountsTheOutputStreamGetterAndNotTheReads() {
    assertThat(writes(BlockBlobClient.class, AzureBlobAudit.writes()))
        .contains("upload", "stageBlock", "commitBlockList", "getBlobOutputStream")
        .doesNotContain("listBlocks", "getBlobUrl");
    assertThat(writes(BlobClient.class, AzureBlobAudit.writes()))
        .contains("upload", "uploadFromFile")
        .doesNotContain("getBlockBlobClient", "getContainerName");
    assertThat(writes(BlobClientBase.class, AzureBlobAudit.writes()))
        .contains("delete", "setMetadata", "setTags", "beginCopy", "undelete")
        .doesNotContain(
            "exists",
            "getProperties",
            "downloadContent",
            "downloadStream",
            "openInputStream",
            "query",
            "generateSas",
            "isSnapshot");
    assertThat(writes(BlobContainerClient.class, AzureBlobAudit.writes()))
        .contains("create", "delete", "setMetadata", "setAccessPolicy")
        .doesNotContain("listBlobs", "findBlobsByTags", "exists");
  }

  private static Set<String> writes(
      Class<?> type, ElementMatcher<? super MethodDescription> matcher) {
    Set<String> names = new TreeSet<>();
    for (MethodDescription m : TypeDescription.ForLoadedType.of(type).getDeclaredMethods()) {
      if (matcher.matches(m)) {
        names.add(m.getName());
      }
    }
    return names;
  }
}
