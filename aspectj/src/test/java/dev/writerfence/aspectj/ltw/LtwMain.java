package dev.writerfence.aspectj.ltw;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Run in a JVM of its own by the load-time weaving test: calls a {@code @WriterFenced} method and
 * prints, after each call, one line {@code RESULT call=N acquired=A released=R bodyRuns=B
 * adviceFrames=F held=H} counting what the fence did so far.
 *
 * <p>Arguments: JDBC URL of the embedded PostgreSQL (superuser, no password), bucket id, number of
 * calls.
 */
public final class LtwMain {
  private LtwMain() {}

  /**
   * @param args JDBC URL, bucket id, number of calls
   */
  public static void main(String[] args) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(args[0]);
    ds.setUser("postgres");
    String bucket = args[1];
    int calls = Integer.parseInt(args[2]);
    String name = "corpus:" + bucket;
    AtomicInteger acquired = new AtomicInteger();
    AtomicInteger released = new AtomicInteger();
    FenceListener counter =
        new FenceListener() {
          @Override
          public void acquired(FenceLease lease, int attempts, Duration waited) {
            if (lease.fenceName().equals(name)) {
              acquired.incrementAndGet();
            }
          }

          @Override
          public void released(FenceLease lease, boolean freed) {
            if (lease.fenceName().equals(name)) {
              released.incrementAndGet();
            }
          }
        };
    ProcessFence.set(WriterFence.builder(ds).listener(counter).build());

    LtwWriter writer = new LtwWriter();
    for (int call = 1; call <= calls; call++) {
      writer.write(bucket);
      System.out.println(
          "RESULT call="
              + call
              + " acquired="
              + acquired.get()
              + " released="
              + released.get()
              + " bodyRuns="
              + writer.bodyRuns
              + " adviceFrames="
              + writer.lastAdviceFrames
              + " held="
              + writer.lastHeld);
    }
  }
}
