package dev.writerfence.samples.fencing;

import dev.writerfence.FenceLease;
import java.util.Map;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Writes objects to one bucket under a fence, so that a writer that lost its lease cannot clobber
 * the work of the one that took over.
 *
 * <ul>
 *   <li><b>Stamping.</b> Every object carries the fencing token of the lease it was written under,
 *       as user metadata {@code x-amz-meta-fencing-token}.
 *   <li><b>Checking the lease.</b> {@link #put} calls {@link FenceLease#checkValid()} before the
 *       write: a holder that paused past its TTL stops here.
 *   <li><b>Rejecting a stale stamp on the server.</b> {@link #write} overwrites only the version it
 *       read ({@code If-Match: <ETag>}) and creates a key only when it is still absent ({@code
 *       If-None-Match: *}). The comparison of stamps happens on the version read, and the condition
 *       makes the server refuse the write when any other write landed since: on a store whose
 *       conditional writes are atomic (Amazon S3) comparing and writing are one step.
 * </ul>
 *
 * <p>S3Proxy 4.1.0 on its {@code transient} and {@code filesystem} stores enforces {@code
 * If-None-Match: *} in the store, but emulates {@code If-Match} (a metadata read, then the write):
 * it refuses a write whose version was replaced before the request arrived, not one racing with it
 * at the same instant. Readers that keep a high-water mark ({@link StampReader}) catch what slips
 * through.
 */
public final class FencedBucket {
  /** The user metadata key of the stamp; on the wire {@code x-amz-meta-fencing-token}. */
  public static final String TOKEN = "fencing-token";

  private static final int ATTEMPTS = 5;

  private final S3Client s3;
  private final String bucket;

  /**
   * @param s3 the client
   * @param bucket the bucket; one fence guards it
   */
  public FencedBucket(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  /**
   * Writes one object under a lease: checks the lease, then writes conditionally.
   *
   * @param lease the lease held on the bucket's fence ({@code WriterFence.current(name)})
   * @param key the object key
   * @param bytes its content
   * @throws dev.writerfence.FenceLostException when the lease was lost: nothing is written
   * @throws StaleWriteException when the object carries a newer fencing token: nothing is written
   */
  public void put(FenceLease lease, String key, byte[] bytes) {
    lease.checkValid(); // stop before a stale write
    put(lease.fencingToken(), key, bytes);
  }

  /**
   * The storage side alone: refuses a stale stamp even when the writer never checked its lease.
   *
   * @param token the fencing token to stamp
   * @param key the object key
   * @param bytes its content
   * @throws StaleWriteException when the object carries a newer fencing token
   */
  public void put(long token, String key, byte[] bytes) {
    for (int attempt = 1; ; attempt++) {
      Stamp seen = read(key);
      try {
        write(token, key, bytes, seen);
        return;
      } catch (ConditionFailedException e) {
        // Another write landed between the read and this write: read again. If it was a newer
        // holder, the next read sees its stamp and refuses.
        if (attempt == ATTEMPTS) {
          throw new StaleWriteException(bucket, key, token, "kept changing under this writer");
        }
      }
    }
  }

  /**
   * @param key the object key
   * @return the stamp and ETag of the object's current version, or {@link Stamp#ABSENT}
   */
  public Stamp read(String key) {
    try {
      HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
      return new Stamp(Long.parseLong(head.metadata().getOrDefault(TOKEN, "0")), head.eTag());
    } catch (NoSuchKeyException e) {
      return Stamp.ABSENT;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Stamp.ABSENT;
      }
      throw e;
    }
  }

  /**
   * One conditional write: refuses when the version read carries a newer token, and otherwise
   * writes only if that version is still the current one.
   *
   * @param token the fencing token to stamp
   * @param key the object key
   * @param bytes its content
   * @param seen what {@link #read} returned for the key
   * @throws StaleWriteException when {@code seen} carries a newer fencing token
   * @throws ConditionFailedException when the object changed since {@code seen} was read (HTTP 412,
   *     or 409 when S3 saw two conditional writes at once)
   */
  public void write(long token, String key, byte[] bytes, Stamp seen) {
    if (seen.fencingToken() > token) {
      throw new StaleWriteException(
          bucket, key, token, "the object carries fencing token " + seen.fencingToken());
    }
    PutObjectRequest.Builder request =
        PutObjectRequest.builder()
            .bucket(bucket)
            .key(key)
            .metadata(Map.of(TOKEN, Long.toString(token)));
    if (seen.absent()) {
      request.ifNoneMatch("*"); // create only: fails if anyone created the key since
    } else {
      request.ifMatch(seen.eTag()); // overwrite only the version whose stamp was compared
    }
    try {
      s3.putObject(request.build(), RequestBody.fromBytes(bytes));
    } catch (S3Exception e) {
      if (e.statusCode() == 412 || e.statusCode() == 409) {
        throw new ConditionFailedException(bucket, key, seen, e);
      }
      throw e;
    }
  }

  /** The server refused a conditional write: the object is no longer the version read. */
  public static final class ConditionFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConditionFailedException(String bucket, String key, Stamp seen, S3Exception cause) {
      super(
          bucket
              + "/"
              + key
              + " is no longer "
              + (seen.absent() ? "absent" : "version " + seen.eTag())
              + " (HTTP "
              + cause.statusCode()
              + ")",
          cause);
    }
  }
}
