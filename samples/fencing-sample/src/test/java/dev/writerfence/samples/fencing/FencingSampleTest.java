package dev.writerfence.samples.fencing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The fencing recipe against a real S3-compatible server (S3Proxy 4.1.0 in this JVM) and a real
 * PostgreSQL (embedded): a stale holder's writes are refused and the newer stamp survives.
 */
class FencingSampleTest {
  private static final Duration TTL = Duration.ofSeconds(2);

  private static LocalS3 s3;
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @BeforeAll
  static void startS3() throws Exception {
    s3 = new LocalS3();
  }

  @AfterAll
  static void stopS3() throws Exception {
    s3.stop();
  }

  @Test
  void staleHolderWriteIsRejectedAndTheNewerStampSurvives() throws Exception {
    String bucket = newBucket();
    String fenceName = "bucket:" + bucket;
    FencedBucket objects = new FencedBucket(s3.client(), bucket);
    // Two writers, as if in two processes. A renews nothing: its lease ends with its TTL.
    WriterFence fenceA = WriterFence.builder(db.dataSource()).withoutRenewal().build();
    WriterFence fenceB = WriterFence.builder(db.dataSource()).build();

    CountDownLatch aHasRead = new CountDownLatch(1);
    CountDownLatch bHasWritten = new CountDownLatch(1);
    Map<String, Throwable> refusals = new ConcurrentHashMap<>();
    long[] tokenA = new long[1];

    CompletableFuture<Void> writerA =
        CompletableFuture.runAsync(
            () ->
                fenceA.run(
                    FenceRequest.builder(fenceName).holderLabel("writer-a").ttl(TTL).build(),
                    () -> {
                      FenceLease lease = WriterFence.current(fenceName).orElseThrow();
                      tokenA[0] = lease.fencingToken();
                      objects.put(lease, "part-0", bytes("A, first pass"));
                      // A reads what it is about to overwrite or create...
                      Stamp part0 = objects.read("part-0");
                      Stamp part1 = objects.read("part-1");
                      aHasRead.countDown();
                      // ...then stalls (GC, SIGSTOP) past its TTL, while B takes over.
                      await(bHasWritten);
                      long token = lease.fencingToken();
                      // 1. The holder checks its lease before writing: refused.
                      refusals.put(
                          "checkValid",
                          thrown(() -> objects.put(lease, "part-0", bytes("A, stale"))));
                      // 2. A skips that check and writes with what it read before stalling: the
                      //    server refuses both conditional writes (If-Match, If-None-Match: *).
                      refusals.put(
                          "If-Match",
                          thrown(() -> objects.write(token, "part-0", bytes("A, stale"), part0)));
                      refusals.put(
                          "If-None-Match",
                          thrown(() -> objects.write(token, "part-1", bytes("A, stale"), part1)));
                      // 3. A skips the check and reads afresh: it sees B's newer stamp and stops.
                      refusals.put(
                          "stamp", thrown(() -> objects.put(token, "part-0", bytes("A, stale"))));
                    }));

    assertThat(aHasRead.await(30, TimeUnit.SECONDS)).isTrue();
    long stalledAt = System.nanoTime();
    FenceLease leaseB = acquireOnceFree(fenceB, fenceName);
    Duration takeover = Duration.ofNanos(System.nanoTime() - stalledAt);
    try {
      assertThat(leaseB.fencingToken()).isGreaterThan(tokenA[0]);
      objects.put(leaseB, "part-0", bytes("B"));
      objects.put(leaseB, "part-1", bytes("B"));
    } finally {
      fenceB.release(leaseB);
    }
    bHasWritten.countDown();
    writerA.get(30, TimeUnit.SECONDS);

    assertThat(takeover).as("B waited for A's TTL").isGreaterThanOrEqualTo(Duration.ofMillis(1500));
    assertThat(refusals.get("checkValid"))
        .isInstanceOf(FenceLostException.class)
        .hasMessageContaining(fenceName);
    assertThat(refusals.get("If-Match"))
        .isInstanceOf(FencedBucket.ConditionFailedException.class)
        .hasMessageContaining("HTTP 412");
    assertThat(refusals.get("If-None-Match"))
        .isInstanceOf(FencedBucket.ConditionFailedException.class)
        .hasMessageContaining("HTTP 412");
    assertThat(refusals.get("stamp"))
        .isInstanceOf(StaleWriteException.class)
        .hasMessageContaining("carries fencing token " + leaseB.fencingToken());
    // What S3Proxy holds: B's objects, stamped with B's token.
    for (String key : new String[] {"part-0", "part-1"}) {
      ResponseBytes<GetObjectResponse> stored = get(bucket, key);
      assertThat(stored.asUtf8String()).as(key).isEqualTo("B");
      assertThat(stored.response().metadata())
          .as(key)
          .containsEntry(FencedBucket.TOKEN, Long.toString(leaseB.fencingToken()));
    }
    fenceA.close();
    fenceB.close();
  }

  @Test
  void eachNewerHolderOverwritesAndStampsItsToken() {
    String bucket = newBucket();
    String fenceName = "bucket:" + bucket;
    FencedBucket objects = new FencedBucket(s3.client(), bucket);
    try (WriterFence fence = WriterFence.builder(db.dataSource()).build()) {
      long last = 0;
      for (int pass = 1; pass <= 3; pass++) {
        String content = "pass " + pass;
        long token =
            fence.call(
                FenceRequest.of(fenceName),
                () -> {
                  FenceLease lease = WriterFence.current(fenceName).orElseThrow();
                  objects.put(lease, "part-0", bytes(content));
                  objects.put(lease, "part-0", bytes(content)); // its own stamp: overwritten
                  return lease.fencingToken();
                });
        assertThat(token).isGreaterThan(last);
        last = token;
        assertThat(objects.read("part-0").fencingToken()).isEqualTo(token);
      }
      assertThat(get(bucket, "part-0").asUtf8String()).isEqualTo("pass 3");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aReaderFlagsAStampBelowItsHighWaterMark() {
    String bucket = newBucket();
    S3Client client = s3.client();
    StampReader reader = new StampReader(client, bucket);
    // The newer holder's version, then a stale one that a store without atomic conditional writes
    // let through (here written without any condition).
    client.putObject(
        b -> b.bucket(bucket).key("part-0").metadata(Map.of(FencedBucket.TOKEN, "7")),
        RequestBody.fromString("newer"));
    assertThat(reader.get("part-0").stale()).isFalse();
    client.putObject(
        b -> b.bucket(bucket).key("part-0").metadata(Map.of(FencedBucket.TOKEN, "6")),
        RequestBody.fromString("stale"));

    StampReader.Read read = reader.get("part-0");
    assertThat(read.fencingToken()).isEqualTo(6);
    assertThat(read.stale()).as("6 is below the mark 7").isTrue();
    client.putObject(
        b -> b.bucket(bucket).key("part-0").metadata(Map.of(FencedBucket.TOKEN, "8")),
        RequestBody.fromString("newest"));
    assertThat(reader.get("part-0").stale()).isFalse();
  }

  /** What the sample relies on, asked of S3Proxy directly. */
  @Test
  void s3ProxyRefusesConditionalPutsWhoseConditionFails() {
    String bucket = newBucket();
    S3Client client = s3.client();
    String eTag =
        client.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("v1")).eTag();

    assertThatThrownBy(
            () ->
                client.putObject(
                    b -> b.bucket(bucket).key("k").ifNoneMatch("*"), RequestBody.fromString("x")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThatThrownBy(
            () ->
                client.putObject(
                    b -> b.bucket(bucket).key("k").ifMatch("\"0123456789abcdef0123456789abcdef\""),
                    RequestBody.fromString("x")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThat(get(bucket, "k").asUtf8String()).isEqualTo("v1");

    client.putObject(b -> b.bucket(bucket).key("k").ifMatch(eTag), RequestBody.fromString("v2"));
    client.putObject(
        b -> b.bucket(bucket).key("new").ifNoneMatch("*"), RequestBody.fromString("n"));
    assertThat(get(bucket, "k").asUtf8String()).isEqualTo("v2");
    assertThat(get(bucket, "new").asUtf8String()).isEqualTo("n");
  }

  private static String newBucket() {
    String bucket = "fenced-" + UUID.randomUUID().toString().substring(0, 8);
    s3.client().createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  private static ResponseBytes<GetObjectResponse> get(String bucket, String key) {
    return s3.client().getObjectAsBytes(b -> b.bucket(bucket).key(key));
  }

  /**
   * B tries once every 100 ms, as a writer that finds the fence busy would, until A's row expired.
   */
  private static FenceLease acquireOnceFree(WriterFence fence, String fenceName)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<FenceLease> lease =
          fence.tryAcquire(
              FenceRequest.builder(fenceName)
                  .holderLabel("writer-b")
                  .ttl(Duration.ofSeconds(30))
                  .build());
      if (lease.isPresent()) {
        return lease.get();
      }
      Thread.sleep(100);
    }
    throw new AssertionError("B never acquired " + fenceName);
  }

  private static Throwable thrown(Runnable write) {
    try {
      write.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
