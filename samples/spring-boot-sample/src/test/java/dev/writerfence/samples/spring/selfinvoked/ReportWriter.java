package dev.writerfence.samples.spring.selfinvoked;

import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import org.springframework.stereotype.Service;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A bean with the classic self-invocation mistake (C23): {@link #writeAll} calls its own
 * {@code @WriterFenced} method through {@code this}, which the Spring AOP proxy never sees, so that
 * write runs without the fence. Called through the proxy, {@link #write} is fenced by the starter.
 */
@Service
public class ReportWriter {
  private final S3Client s3;

  public ReportWriter(S3Client s3) {
    this.s3 = s3;
  }

  /**
   * Writes one object under the bucket's fence (when called through the proxy).
   *
   * @return whether this thread held the bucket's fence during the write
   */
  @WriterFenced(value = "bucket:{0}", holder = "report-writer")
  public boolean write(String bucket, String key) {
    boolean held = WriterFence.current("bucket:" + bucket).isPresent();
    s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(key));
    return held;
  }

  /**
   * Writes through {@code this}: past the proxy, so unfenced.
   *
   * @return whether this thread held the bucket's fence during the write (false)
   */
  public boolean writeAll(String bucket, String key) {
    return this.write(bucket, key);
  }
}
