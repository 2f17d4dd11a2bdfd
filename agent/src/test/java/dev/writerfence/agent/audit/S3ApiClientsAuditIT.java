package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.example.audit.MixedWriterApp;
import org.example.clients.AwsS3V1App;
import org.example.clients.MinioApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other clients of the S3 API, each app in its own JVM with the real agent, against S3Proxy on
 * 127.0.0.1 and a fence in the embedded PostgreSQL: AWS SDK v1 ({@link AwsS3V1App}: overloads that
 * take text, and the transfer manager's multipart upload, three parts on its own threads, counted
 * once) and MinIO ({@link MinioApp}: the sync and the async client). Reads and fenced writes are
 * never listed.
 */
class S3ApiClientsAuditIT {
  private static S3Server s3;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Server();
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void C22_logListsExactlyTheUnfencedWritesOfSdkV1() throws Exception {
    String bucket = bucket("v1-log");
    ClientApp app = run(AwsS3V1App.class, bucket, "log");

    assertThat(app.output())
        .contains(
            "wrote fenced/put",
            "wrote fenced/transfer",
            "wrote unfenced/put",
            "wrote unfenced/copy",
            "wrote unfenced/delete",
            "wrote unfenced/transfer",
            "wrote reads");
    assertThat(app.listed())
        .as(app.report().toPrettyString())
        .containsExactlyInAnyOrder(
            tuple("aws-s3-v1", "putObject", bucket, "unfenced/put", 1L),
            tuple("aws-s3-v1", "copyObject", bucket, "unfenced/copy", 1L),
            tuple("aws-s3-v1", "deleteObject", bucket, "fenced/transfer", 1L),
            tuple("aws-s3-v1", "upload", bucket, "unfenced/transfer", 1L));
    app.assertEachWriteFrom(AwsS3V1App.class.getName(), 0);
  }

  @Test
  void C22_enforceRefusesTheUnfencedWritesOfSdkV1BeforeTheObjectChanges() throws Exception {
    String bucket = bucket("v1-enforce");
    ClientApp app = run(AwsS3V1App.class, bucket, "enforce");

    assertThat(app.output())
        .contains(
            "wrote fenced/put",
            "wrote fenced/transfer",
            "refused unfenced/put",
            "refused unfenced/copy",
            "refused unfenced/delete",
            "refused unfenced/transfer");
    assertAbsent(bucket, "unfenced/put", "unfenced/copy", "unfenced/transfer");
    assertThat(s3.exists(bucket, "fenced/put")).isTrue();
    assertThat(s3.exists(bucket, "fenced/transfer")).as("the refused delete").isTrue();
    app.assertEachWriteFrom(AwsS3V1App.class.getName(), 1);
  }

  @Test
  void C22_logListsExactlyTheUnfencedWritesOfMinio() throws Exception {
    String bucket = bucket("minio-log");
    ClientApp app = run(MinioApp.class, bucket, "log");

    assertThat(app.output())
        .contains(
            "wrote fenced/put",
            "wrote fenced/async",
            "wrote unfenced/put",
            "wrote unfenced/async",
            "wrote unfenced/copy",
            "wrote unfenced/remove",
            "wrote reads");
    assertThat(app.listed())
        .as(app.report().toPrettyString())
        .containsExactlyInAnyOrder(
            tuple("minio", "putObject", bucket, "unfenced/put", 1L),
            tuple("minio", "putObject", bucket, "unfenced/async", 1L),
            tuple("minio", "copyObject", bucket, "unfenced/copy", 1L),
            tuple("minio", "removeObject", bucket, "fenced/async", 1L));
    app.assertEachWriteFrom(MinioApp.class.getName(), 0);
  }

  @Test
  void C22_enforceRefusesTheUnfencedWritesOfMinioBeforeTheObjectChanges() throws Exception {
    String bucket = bucket("minio-enforce");
    ClientApp app = run(MinioApp.class, bucket, "enforce");

    assertThat(app.output())
        .contains(
            "wrote fenced/put",
            "wrote fenced/async",
            "refused unfenced/put",
            "refused unfenced/async",
            "refused unfenced/copy",
            "refused unfenced/remove");
    assertAbsent(bucket, "unfenced/put", "unfenced/async", "unfenced/copy");
    assertThat(s3.exists(bucket, "fenced/put")).isTrue();
    assertThat(s3.exists(bucket, "fenced/async")).as("the refused remove").isTrue();
    app.assertEachWriteFrom(MinioApp.class.getName(), 1);
  }

  private ClientApp run(Class<?> main, String bucket, String mode) throws Exception {
    s3.createBucket(bucket);
    return ClientApp.run(
        main.getName(),
        dir.resolve(mode + ".json"),
        List.of("audit.mode=" + mode),
        s3.endpoint().toString(),
        EmbeddedDatabase.get().jdbcUrl(),
        FenceNames.random("s3-api"),
        bucket,
        MixedWriterApp.KEY_ID,
        MixedWriterApp.SECRET);
  }

  private static void assertAbsent(String bucket, String... keys) {
    for (String key : keys) {
      assertThat(s3.exists(bucket, key)).as(key).isFalse();
    }
  }

  private static String bucket(String prefix) {
    return FenceNames.random(prefix).toLowerCase(Locale.ROOT);
  }
}
