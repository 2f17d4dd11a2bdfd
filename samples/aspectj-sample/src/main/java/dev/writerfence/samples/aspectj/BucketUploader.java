package dev.writerfence.samples.aspectj;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Uploads batches of objects into a bucket, one writer at a time per bucket. The "bucket" is a
 * directory {@code <root>/<bucket>}; an object is a file in it whose first line is the fencing
 * token of the lease it was written under ({@code fencing-token: N}).
 *
 * <p>Each batch appends {@code begin N <thread>} and {@code end N <thread>} to the bucket's {@code
 * journal.log}, so anyone can check afterwards that no two batches overlapped and that tokens only
 * grew.
 *
 * <p>{@link #upload} is fenced by {@code @WriterFenced("bucket:{0}")}: the aspect, woven in at
 * compile time, acquires the lease on {@code bucket:<bucket>} before the method runs and releases
 * it afterwards. Thread-safe.
 */
public class BucketUploader {
  /** The journal's file name inside the bucket directory. */
  public static final String JOURNAL = "journal.log";

  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  private static final String STAMP = "fencing-token: ";

  private final Path root;

  /**
   * @param root the directory that holds one directory per bucket; never {@code null}
   */
  public BucketUploader(Path root) {
    this.root = root;
  }

  /**
   * Writes one batch of objects under the bucket's fence, stamped with the lease's fencing token.
   *
   * @param bucket the bucket name: the fence name is {@code "bucket:" + bucket}; never {@code null}
   * @param objects object key to content; keys are 1 to 100 characters of {@code [A-Za-z0-9._-]}
   * @return the fencing token the batch was written under
   * @throws IOException when a file cannot be written
   * @throws StaleWriteException when an object already carries a higher fencing token: a newer
   *     writer has been there, and this one must not overwrite its data
   * @throws IllegalArgumentException when {@code bucket} is {@code null} (before any acquire) or a
   *     key breaks the rule
   * @throws dev.writerfence.WriterFenceBusyException when another writer kept the bucket through
   *     every attempt; nothing was written
   */
  @WriterFenced(
      value = "bucket:{0}",
      holder = "upload",
      ttlSeconds = 30,
      retryMaxAttempts = 50,
      retryInitialIntervalMillis = 20,
      retryMaxIntervalMillis = 200)
  public long upload(String bucket, Map<String, String> objects) throws IOException {
    FenceLease lease =
        WriterFence.current("bucket:" + bucket)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "BucketUploader.upload ran without its fence: compile it with ajc and"
                            + " writer-fence-aspectj on the aspect path"));
    long token = lease.fencingToken();
    Path dir = Files.createDirectories(root.resolve(checkKey(bucket)));
    String writer = Thread.currentThread().getName();
    journal(dir, "begin " + token + " " + writer);
    for (Map.Entry<String, String> object : objects.entrySet()) {
      put(dir.resolve(checkKey(object.getKey())), token, object.getValue());
    }
    journal(dir, "end " + token + " " + writer);
    return token;
  }

  /**
   * @param object an object file written by {@link #upload}
   * @return the fencing token it was written under
   * @throws IOException when it cannot be read or carries no stamp
   */
  public static long fencingTokenOf(Path object) throws IOException {
    String content = Files.readString(object, StandardCharsets.UTF_8);
    if (!content.startsWith(STAMP)) {
      throw new IOException(object + " carries no fencing token");
    }
    int end = content.indexOf('\n');
    return Long.parseLong(content.substring(STAMP.length(), end < 0 ? content.length() : end));
  }

  /** The storage side of fencing: never overwrite an object stamped by a newer lease. */
  private static void put(Path object, long token, String content) throws IOException {
    if (Files.exists(object)) {
      long stored = fencingTokenOf(object);
      if (stored > token) {
        throw new StaleWriteException(object, token, stored);
      }
    }
    Files.writeString(object, STAMP + token + "\n" + content, StandardCharsets.UTF_8);
  }

  private static void journal(Path dir, String line) throws IOException {
    Files.writeString(
        dir.resolve(JOURNAL),
        line + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private static String checkKey(String key) {
    if (key == null || !KEY.matcher(key).matches()) {
      throw new IllegalArgumentException(
          "bucket or object key '"
              + key
              + "' is not allowed: 1 to 100 characters of [A-Za-z0-9._-], not starting with . _"
              + " or -");
    }
    return key;
  }

  /** A write carrying an older fencing token than the object already has. */
  public static final class StaleWriteException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * @param object the object that was not overwritten
     * @param token the fencing token of the refused write
     * @param stored the fencing token the object already carries
     */
    public StaleWriteException(Path object, long token, long stored) {
      super(
          "refused to overwrite "
              + object
              + ": it carries fencing token "
              + stored
              + ", this write only "
              + token);
    }
  }
}
