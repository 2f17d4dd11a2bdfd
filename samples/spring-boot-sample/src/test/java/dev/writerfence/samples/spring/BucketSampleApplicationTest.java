package dev.writerfence.samples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.writerfence.HolderLabel;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs the sample: the application on the embedded PostgreSQL with S3Proxy in process, several
 * threads writing batches to one bucket at the same instant, then the actuator as an operator sees
 * it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class BucketSampleApplicationTest {
  @Autowired BucketWriter writer;
  @Autowired S3Client s3;
  @LocalServerPort int port;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> EmbeddedDatabase.get().jdbcUrl());
    registry.add("spring.datasource.username", () -> "postgres");
    // Four threads queue on one bucket: on a loaded machine a batch takes seconds, so the default
    // 5 busy retries run out before a thread's turn comes.
    registry.add("writer-fence.retry.max-attempts", () -> "100");
  }

  @Test
  void writersOfOneBucketTakeTurnsAndStampTheirObjects() throws Exception {
    String bucket = "photos-" + UUID.randomUUID().toString().substring(0, 8);
    s3.createBucket(b -> b.bucket(bucket));
    int threads = 4;
    int batches = 5;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<BucketWriter.Batch>>> results = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  List<BucketWriter.Batch> done = new ArrayList<>();
                  for (int b = 0; b < batches; b++) {
                    Map<String, String> objects = new LinkedHashMap<>();
                    objects.put("shared.txt", "thread " + thread + " batch " + b);
                    objects.put("t" + thread + "/b" + b + ".txt", "payload");
                    done.add(writer.put(bucket, objects));
                  }
                  return done;
                }));
      }
      start.countDown();
      List<BucketWriter.Batch> all = new ArrayList<>();
      for (Future<List<BucketWriter.Batch>> f : results) {
        all.addAll(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(all).hasSize(threads * batches);
      // No two batches overlapped, and every batch ran under its own lease: fencing tokens rise in
      // order of entry.
      List<Section> sections =
          all.stream()
              .map(
                  b ->
                      Section.onNanoTime(
                          "batch", b.fencingToken(), b.enteredNanos(), b.exitedNanos()))
              .toList();
      assertThat(SectionChecker.check(sections).violations()).isEmpty();
      long last = all.stream().mapToLong(BucketWriter.Batch::fencingToken).max().orElseThrow();
      // The shared object carries the token of the last batch that wrote it.
      assertThat(writer.storedToken(bucket, "shared.txt")).isEqualTo(last);
      assertThat(writer.storedToken(bucket, "t0/b0.txt")).isPositive();
    } finally {
      pool.shutdownNow();
    }

    String leases = get("/actuator/writerfence/bucket:" + bucket);
    assertThat(JsonPath.<String>read(leases, "$.state")).isEqualTo("free");
    assertThat(JsonPath.<String>read(leases, "$.holderLabel"))
        .isEqualTo("bucket-writer@" + HolderLabel.instance());
    // Meters are tagged with the annotation's template, not each bucket's name: one series for
    // every bucket, however many there are (ADR 71).
    String timer = get("/actuator/metrics/writer.fence.acquire?tag=fence:bucket:%7B0%7D");
    List<Double> count = JsonPath.read(timer, "$.measurements[?(@.statistic == 'COUNT')].value");
    assertThat(count).containsExactly((double) threads * batches);
    String health = get("/actuator/health/writerFence");
    assertThat(JsonPath.<String>read(health, "$.status")).isEqualTo("UP");
  }

  private String get(String path) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return response.body();
  }
}
