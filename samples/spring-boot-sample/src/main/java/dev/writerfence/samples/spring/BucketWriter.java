package dev.writerfence.samples.spring;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import java.util.Map;
import org.springframework.stereotype.Service;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Writes batches of objects to a bucket under the bucket's fence. Each object carries the fencing
 * token of the lease it was written under (metadata {@value #TOKEN}); an object that already
 * carries a higher token is never overwritten: a writer that lost its lease cannot clobber the work
 * of the one that took over.
 */
@Service
public class BucketWriter {
  /** The object metadata key of the fencing token. */
  public static final String TOKEN = "fencing-token";

  private final S3Client s3;

  public BucketWriter(S3Client s3) {
    this.s3 = s3;
  }

  /**
   * The result of one batch.
   *
   * @param bucket the bucket written
   * @param fencingToken the fencing token of the lease it was written under
   * @param written how many objects were written
   * @param enteredNanos {@code System.nanoTime()} when the batch began, under the lease
   * @param exitedNanos {@code System.nanoTime()} when it ended, still under the lease
   */
  public record Batch(
      String bucket, long fencingToken, int written, long enteredNanos, long exitedNanos) {}

  /**
   * @param bucket the bucket (one fence per bucket: {@code bucket:<name>})
   * @param objects object keys and contents
   * @return what was written, under which fencing token
   * @throws StaleWriteException when an object already carries a higher fencing token
   */
  @WriterFenced(value = "bucket:{0}", holder = "bucket-writer", ttlSeconds = 60)
  public Batch put(String bucket, Map<String, String> objects) {
    long entered = System.nanoTime();
    FenceLease lease = WriterFence.current("bucket:" + bucket).orElseThrow();
    long token = lease.fencingToken();
    for (Map.Entry<String, String> object : objects.entrySet()) {
      long stored = storedToken(bucket, object.getKey());
      if (stored > token) {
        throw new StaleWriteException(bucket, object.getKey(), token, stored);
      }
      s3.putObject(
          b -> b.bucket(bucket).key(object.getKey()).metadata(Map.of(TOKEN, Long.toString(token))),
          RequestBody.fromString(object.getValue()));
    }
    return new Batch(bucket, token, objects.size(), entered, System.nanoTime());
  }

  /**
   * @param bucket the bucket
   * @param key the object key
   * @return the fencing token stamped on the object, or 0 when there is no such object
   */
  public long storedToken(String bucket, String key) {
    try {
      HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
      return Long.parseLong(head.metadata().getOrDefault(TOKEN, "0"));
    } catch (NoSuchKeyException e) {
      return 0;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return 0;
      }
      throw e;
    }
  }

  /** A write stamped with a lower fencing token than the object already has. */
  public static final class StaleWriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleWriteException(String bucket, String key, long token, long stored) {
      super(
          "refused: "
              + bucket
              + "/"
              + key
              + " carries fencing token "
              + stored
              + ", newer than this writer's "
              + token);
    }
  }
}
