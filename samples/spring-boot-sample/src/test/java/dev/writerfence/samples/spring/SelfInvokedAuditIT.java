package dev.writerfence.samples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.writerfence.samples.spring.StorageConfiguration.EmbeddedS3;
import dev.writerfence.samples.spring.selfinvoked.ReportWriter;
import dev.writerfence.samples.spring.selfinvoked.SelfInvokingApp;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * C23 with real Spring: {@link SelfInvokingApp} as a Boot executable jar in its own JVM with the
 * real agent jar in audit log mode, the starter fencing {@link ReportWriter} through its AOP proxy,
 * writing to S3Proxy on 127.0.0.1 with AWS SDK v2. The app's classes and its writer-fence core load
 * through Boot's class loader; that the proxied write is not listed shows the agent's audit sees
 * the starter's hold (the held-fence stack in the bootstrap class loader is shared).
 */
class SelfInvokedAuditIT {
  @TempDir Path dir;

  @Test
  void C23_selfInvokedFencedMethodIsFlaggedAsUnfenced() throws Exception {
    String bucket = "reports-" + UUID.randomUUID().toString().substring(0, 8);
    EmbeddedS3 server = new EmbeddedS3("sample", "sample-secret");
    try (S3Client s3 = client(server.endpoint())) {
      s3.createBucket(b -> b.bucket(bucket));
      Path report = dir.resolve("audit.json");
      // Agent settings in the agent's own config file; as -Dwriter-fence.audit.* they would work
      // too (the starter accepts every key of the settings catalog: SettingsCatalogIT).
      Path settings = dir.resolve("agent.properties");
      Files.writeString(settings, "audit.mode=log\naudit.report=" + report + "\n");
      List<String> jvm = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
      jvm.add("-javaagent:" + BootJars.AGENT_JAR + "=config=" + settings);

      Path bootJar = BootJars.ofTestClassPath(dir, SelfInvokingApp.class);

      try (ForkedJvm app =
          ForkedJvm.start(
              jvm,
              bootJar.toString(),
              BootJars.LAUNCHER,
              "--spring.datasource.url=" + EmbeddedDatabase.get().jdbcUrl(),
              "--spring.datasource.username=postgres",
              "--sample.s3.endpoint=" + server.endpoint(),
              "--sample.bucket=" + bucket)) {
        app.awaitLine("done", Duration.ofMinutes(4));
        assertThat(app.awaitExit(Duration.ofMinutes(1))).as(app.stderr()).isZero();
        assertThat(app.output())
            .contains(
                "app-loader org.springframework.boot.loader.launch.LaunchedClassLoader",
                "aop-proxy true",
                "wrote proxied held=true",
                "wrote self-invoked held=false");
      }

      DocumentContext audit = JsonPath.parse(report.toFile());
      assertThat(audit.<String>read("$.mode")).isEqualTo("log");
      assertThat(audit.<Integer>read("$.total_unfenced_writes")).isEqualTo(1);
      List<Map<String, Object>> writes = audit.read("$.unfenced_writes");
      assertThat(writes)
          .singleElement()
          .satisfies(
              w -> {
                assertThat(w)
                    .containsEntry("client", "aws-s3-v2")
                    .containsEntry("operation", "putObject")
                    .containsEntry("bucket", bucket)
                    .containsEntry("key", "self-invoked")
                    .containsEntry("thread", "main")
                    .containsEntry("count", 1)
                    .containsEntry("refused", 0);
                // The call site is the bean's own method, not the proxy's nor the caller's.
                assertThat((String) w.get("call_site"))
                    .startsWith(ReportWriter.class.getName() + ".write(")
                    .contains("ReportWriter.java:");
              });
      // Log mode: both writes went out; only the self-invoked one is listed.
      s3.headObject(h -> h.bucket(bucket).key("proxied"));
      s3.headObject(h -> h.bucket(bucket).key("self-invoked"));
    } finally {
      server.destroy();
    }
  }

  private static S3Client client(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("sample", "sample-secret")))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(Apache5HttpClient.builder())
        .build();
  }
}
