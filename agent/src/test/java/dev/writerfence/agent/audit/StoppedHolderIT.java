package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.example.audit.StoppedHolderApp;
import org.junit.jupiter.api.Test;

/**
 * C16 in full: a holder in its own JVM with the real agent in enforce mode, renewal on, is stopped
 * with SIGSTOP past its TTL; this JVM takes the fence over; the holder is continued and tries to
 * write to S3Proxy.
 */
class StoppedHolderIT {
  private static final Duration START = Duration.ofMinutes(2);
  private static final Duration ANSWER = Duration.ofSeconds(60);

  @Test
  void C16_stoppedHolderIsRefusedItsWriteInEnforceModeAfterTakeover() throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    String name = FenceNames.random("stopped");
    String bucket = FenceNames.random("stopped").toLowerCase(Locale.ROOT);
    try (S3Server s3 = new S3Server();
        WriterFence other = WriterFence.builder(db.dataSource()).withoutRenewal().build()) {
      s3.createBucket(bucket);
      List<String> jvm = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
      jvm.add("-javaagent:" + AuditApp.AGENT_JAR);
      jvm.add("-Dwriter-fence.audit.mode=enforce");
      // TTL 4 s renewed every second: the lease survives a busy machine until the stop.
      try (ForkedJvm holder =
          ForkedJvm.start(
              jvm,
              AuditApp.applicationClassPath(),
              StoppedHolderApp.class.getName(),
              s3.endpoint().toString(),
              db.jdbcUrl(),
              name,
              bucket,
              "4",
              "1000")) {
        holder.awaitLine("ready", START);
        long token = Long.parseLong(holder.awaitLine("holding ", ANSWER).substring(8));
        holder.send("write held/before");
        assertThat(holder.awaitLine("valid ", ANSWER)).isEqualTo("valid true");
        assertThat(holder.awaitLine(l -> l.contains("held/before"), ANSWER))
            .isEqualTo("wrote held/before");

        signal("STOP", holder.pid());
        FenceLease taken;
        try {
          // Free once the stopped holder's TTL has run out in the database, not before.
          taken =
              await("takeover while the holder is stopped")
                  .atMost(ANSWER)
                  .pollInterval(Duration.ofMillis(200))
                  .until(
                      () ->
                          other
                              .tryAcquire(
                                  FenceRequest.builder(name)
                                      .holderLabel("other")
                                      .ttl(Duration.ofMinutes(2))
                                      .build())
                              .orElse(null),
                      Objects::nonNull);
        } finally {
          signal("CONT", holder.pid());
        }
        holder.send("write stale/after-takeover");

        assertThat(holder.awaitLine("valid ", ANSWER)).isEqualTo("valid false");
        assertThat(holder.awaitLine(l -> l.contains("stale/after-takeover"), ANSWER))
            .startsWith("refused stale/after-takeover org.example.audit.StoppedHolderApp");
        assertThat(s3.exists(bucket, "held/before")).isTrue();
        assertThat(s3.exists(bucket, "stale/after-takeover")).isFalse();
        assertThat(taken.fencingToken()).isGreaterThan(token);
        await("the holder's listener heard of the loss")
            .atMost(ANSWER)
            .until(() -> holder.output().stream().anyMatch(l -> l.startsWith("listener lost ")));
        holder.send("end");
        holder.awaitLine("done", ANSWER);
        assertThat(holder.awaitExit(ANSWER)).as(holder.stderr()).isZero();
        // The stale holder's release left the new holder's lease alone.
        assertThat(other.release(taken)).isTrue();
      }
    }
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).start();
    assertThat(kill.waitFor()).as("kill -%s %d", signal, pid).isZero();
  }
}
