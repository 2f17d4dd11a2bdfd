package dev.writerfence.testing;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A writer process for the lifecycle cases (C14–C16): it holds one fence inside a long fenced pass
 * until it is signalled or told otherwise. Arguments: JDBC URL, schema, fence name, TTL in seconds,
 * renew interval in milliseconds, and optionally {@code keep-on-shutdown} (the fence is built with
 * {@code releaseOnJvmShutdown(false)}). It prints {@code ready}, then {@code holding TOKEN} once
 * inside the pass, and {@code listener lost REASON} when its fence reports the lease lost.
 *
 * <p>Inside the pass it reads commands from standard input: {@code write} checks the lease ({@link
 * FenceLease#checkValid()}) and then "writes", answering {@code wrote TOKEN}, or {@code lost TOKEN
 * REASON} without writing; {@code end} ends the pass (the lease is released) and the process. With
 * no command the pass lasts until the process is killed.
 */
public final class LifecycleWriter {
  private LifecycleWriter() {}

  /**
   * @param args JDBC URL, schema, fence name, TTL seconds, renew interval milliseconds, and
   *     optionally {@code keep-on-shutdown}
   */
  public static void main(String[] args) throws Exception {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(args[0]);
    ds.setUser("postgres");
    ds.setConnectTimeout(5);
    ds.setSocketTimeout(10);
    String fenceName = args[2];
    CountDownLatch end = new CountDownLatch(1);
    WriterFence fence =
        WriterFence.builder(ds)
            .schema(args[1])
            .defaultTtl(Duration.ofSeconds(Long.parseLong(args[3])))
            .renewInterval(Duration.ofMillis(Long.parseLong(args[4])))
            .releaseOnJvmShutdown(!(args.length > 5 && "keep-on-shutdown".equals(args[5])))
            .listener(
                new FenceListener() {
                  @Override
                  public void lost(FenceLease lease, String reason) {
                    say("listener lost " + reason);
                  }
                })
            .build();
    fence.status(fenceName); // loads the driver and connects once before "ready"
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    say("ready");
    fence.run(
        FenceRequest.builder(fenceName).holderLabel("lifecycle-writer").build(),
        () -> {
          FenceLease lease = WriterFence.current(fenceName).orElseThrow();
          say("holding " + lease.fencingToken());
          try {
            String line;
            while ((line = in.readLine()) != null && !line.equals("end")) {
              if (line.equals("write")) {
                try {
                  lease.checkValid(); // before each storage write
                  say("wrote " + lease.fencingToken());
                } catch (FenceLostException e) {
                  say("lost " + e.fencingToken() + " " + e.reason());
                }
              }
            }
            if (line == null) {
              end.await(); // no more commands: the pass goes on until a signal ends the process
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    say("released");
    System.exit(0);
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
