package org.example.audit;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.testing.WriterProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A holder for C16, run in its own JVM with the real agent in enforce mode: it holds one fence
 * (renewal on) inside a long pass and writes to S3 when told. Arguments: endpoint, JDBC URL, fence
 * name, bucket, TTL in seconds, renew interval in milliseconds.
 *
 * <p>Prints {@code ready}, {@code holding TOKEN} once inside the pass, and {@code listener lost
 * REASON} when the fence reports the lease lost. Reads commands from standard input: {@code write
 * KEY} answers {@code valid BOOLEAN} (the lease as the holder sees it just before the write), then
 * {@code wrote KEY} or {@code refused KEY CALL_SITE}; {@code end} ends the pass and the process.
 */
public final class StoppedHolderApp {
  private StoppedHolderApp() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource db = WriterProcess.unpooled(args[1]);
    String fenceName = args[2];
    String bucket = args[3];
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (S3Client s3 = MixedWriterApp.syncBuilder(URI.create(args[0])).build();
        WriterFence fence =
            WriterFence.builder(db)
                .defaultTtl(Duration.ofSeconds(Long.parseLong(args[4])))
                .renewInterval(Duration.ofMillis(Long.parseLong(args[5])))
                .listener(
                    new FenceListener() {
                      @Override
                      public void lost(FenceLease lease, String reason) {
                        say("listener lost " + reason);
                      }
                    })
                .build()) {
      fence.status(fenceName); // connects once before "ready"
      say("ready");
      fence.run(
          FenceRequest.of(fenceName),
          () -> {
            FenceLease lease = WriterFence.current(fenceName).orElseThrow();
            say("holding " + lease.fencingToken());
            String line;
            while ((line = readLine(in)) != null && !line.equals("end")) {
              if (line.startsWith("write ")) {
                String key = line.substring("write ".length());
                say("valid " + lease.isValid());
                try {
                  s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(key));
                  say("wrote " + key);
                } catch (UnfencedWriteException e) {
                  say("refused " + key + " " + e.callSite());
                }
              }
            }
          });
    } catch (RuntimeException e) {
      say("fence ended with " + e.getClass().getSimpleName()); // the lost lease, at release
    }
    say("done");
  }

  private static String readLine(BufferedReader in) {
    try {
      return in.readLine();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
