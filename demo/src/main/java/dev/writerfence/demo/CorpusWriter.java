package dev.writerfence.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * One writer of the corpus bucket. {@link #writeBatch(String, int, List)} is the critical section:
 * it runs only while this process holds the fence named by its first argument (the demo's {@code
 * --fence}, {@value #DEFAULT_FENCE_NAME} unless told otherwise; the {@code @WriterFenced} aspect is
 * woven in at compile time) and stamps every object with the lease's fencing token.
 */
public class CorpusWriter {
  /** The fence every writer of the bucket contends for, unless the demo is given another. */
  public static final String DEFAULT_FENCE_NAME = "corpus";

  /** User metadata key of the fencing token ({@code x-amz-meta-fencing-token}). */
  public static final String TOKEN_METADATA = "fencing-token";

  /** User metadata key of the holder label ({@code x-amz-meta-holder}). */
  public static final String HOLDER_METADATA = "holder";

  private final String fenceName;
  private final S3Client s3;
  private final String bucket;
  private final String label;
  private final DatabaseClock clock;
  private final AcquireStats stats;
  private final SectionLog log;

  CorpusWriter(
      String fenceName,
      S3Client s3,
      String bucket,
      String label,
      DatabaseClock clock,
      AcquireStats stats,
      SectionLog log) {
    this.fenceName = fenceName;
    this.s3 = s3;
    this.bucket = bucket;
    this.label = label;
    this.clock = clock;
    this.stats = stats;
    this.log = log;
  }

  /**
   * @return the fence this writer's batches are written under
   */
  public String fenceName() {
    return fenceName;
  }

  /**
   * Writes a batch of objects under this writer's fence: {@link #writeBatch(String, int, List)}
   * with {@link #fenceName()}.
   *
   * @param thread the calling writer thread, for the record
   * @param keys the object keys to write
   * @return the recorded section
   */
  public SectionRecord writeBatch(int thread, List<String> keys) {
    return writeBatch(fenceName, thread, keys);
  }

  /**
   * Writes a batch of objects under the fence {@code fence} and records the critical section: its
   * start and end on the database clock, its fencing token and the keys written. The fence name is
   * the template {@code {0}}: the first argument.
   *
   * @param fence the fence name
   * @param thread the calling writer thread, for the record
   * @param keys the object keys to write
   * @return the recorded section
   * @throws IllegalStateException when called without the fence (the aspect was not woven)
   * @throws RuntimeException when a write failed; the section is recorded with the error first
   */
  @WriterFenced("{0}")
  public SectionRecord writeBatch(String fence, int thread, List<String> keys) {
    FenceLease lease =
        WriterFence.current(fence)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "writeBatch ran without a lease on '"
                            + fence
                            + "': the @WriterFenced aspect is not woven into "
                            + CorpusWriter.class.getName()));
    long start = clock.nowMicros();
    List<String> written = new ArrayList<>(keys.size());
    RuntimeException failure = null;
    try {
      for (String key : keys) {
        put(key, lease, thread);
        written.add(key);
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    long end = clock.nowMicros();
    AcquireStats.Acquire acquire = stats.lastAcquire();
    SectionRecord section =
        new SectionRecord(
            label,
            ProcessHandle.current().pid(),
            thread,
            lease.fencingToken(),
            Micros.of(lease.acquiredAt()),
            Micros.of(lease.expiresAt()),
            start,
            end,
            List.copyOf(written),
            acquire.attempts(),
            acquire.waited().toNanos() / 1000,
            failure == null
                ? null
                : "writing '" + keys.get(written.size()) + "' failed: " + failure);
    log.append(section);
    if (failure != null) {
      throw failure;
    }
    return section;
  }

  private void put(String key, FenceLease lease, int thread) {
    String token = Long.toString(lease.fencingToken());
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("key", key);
    body.put("fencing_token", lease.fencingToken());
    body.put("holder", label);
    body.put("pid", ProcessHandle.current().pid());
    body.put("thread", thread);
    String json;
    try {
      json = Json.MAPPER.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    s3.putObject(
        PutObjectRequest.builder()
            .bucket(bucket)
            .key(key)
            .contentType("application/json")
            .metadata(Map.of(TOKEN_METADATA, token, HOLDER_METADATA, label))
            .build(),
        RequestBody.fromString(json));
  }
}
