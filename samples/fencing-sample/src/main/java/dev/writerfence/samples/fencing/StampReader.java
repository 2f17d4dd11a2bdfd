package dev.writerfence.samples.fencing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The reader's side of fencing: it remembers, per key, the highest fencing token it has seen (a
 * high-water mark) and flags any version stamped lower as stale. That catches a stale write the
 * store let through, e.g. where conditional writes are missing or not atomic.
 */
public final class StampReader {
  private final S3Client s3;
  private final String bucket;
  private final Map<String, Long> highWater = new ConcurrentHashMap<>();

  /**
   * @param s3 the client
   * @param bucket the bucket
   */
  public StampReader(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  /**
   * One version read.
   *
   * @param key the object key
   * @param fencingToken its stamp
   * @param content its bytes
   * @param stale whether the stamp is lower than one this reader saw on the key before: ignore the
   *     content and report it
   */
  public record Read(String key, long fencingToken, byte[] content, boolean stale) {}

  /**
   * @param key the object key
   * @return the current version, flagged stale when its stamp is below this key's high-water mark
   */
  public Read get(String key) {
    ResponseBytes<GetObjectResponse> object = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
    long token = Long.parseLong(object.response().metadata().getOrDefault(FencedBucket.TOKEN, "0"));
    long mark = highWater.merge(key, token, Math::max); // only ever raised
    return new Read(key, token, object.asByteArray(), token < mark);
  }
}
