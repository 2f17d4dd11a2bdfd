package dev.writerfence.aspectj.trace;

import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.config.ProcessFence;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Run in a JVM of its own under a debugger by {@code FencedCallPathTest}: makes one fenced call to
 * warm up (class initialization, the annotation's first parse, the first connection), then one more
 * between {@link TraceMarks#begin()} and {@link TraceMarks#end()}, the call whose path is counted.
 * The fence is a plain one: lease-row backend, renewal and the JVM shutdown hook on, no listener.
 *
 * <p>Arguments: JDBC URL of the embedded PostgreSQL (superuser, no password), bucket id.
 */
public final class OneWovenCall {
  private OneWovenCall() {}

  /**
   * @param args JDBC URL, bucket id
   */
  public static void main(String[] args) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(args[0]);
    ds.setUser("postgres");
    WriterFence fence = WriterFence.builder(ds).build();
    ProcessFence.set(fence);
    Uploads uploads = new Uploads();
    uploads.upload(args[1]);
    TraceMarks.begin();
    uploads.upload(args[1]);
    TraceMarks.end();
    fence.close();
    System.out.println("RESULT calls=" + uploads.calls);
  }

  /** The woven writer: a fence name from the first argument, as a bucket writer has. */
  static final class Uploads {
    int calls;

    @WriterFenced(value = "corpus:{0}", holder = "upload")
    void upload(String bucket) {
      calls++;
    }
  }
}
