package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The legacy sample fenced by the real agent jar on the advisory backend with a {@code
 * fence.methods} entry naming an {@code advisory-key} (ADR 58): the call locks the key of the text
 * its arguments make, so a session outside writer-fence that holds that key keeps the method from
 * running, and a hold of the method is that key in {@code pg_locks}.
 */
class AgentAdvisoryKeyIT {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration ANSWER = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void anEntrysAdvisoryKeyIsTheLockTheMethodTakes() throws Exception {
    String prefix = FenceNames.random("agent-key");
    List<String> lines = new ArrayList<>(LegacyJvm.dataSource(DB));
    lines.add("backend=advisory");
    lines.add("retry.max-attempts=1");
    lines.add(
        "fence.methods=com.acme.sync.Uploader#upload="
            + prefix
            + "-{0}/keyed;advisory-key="
            + prefix
            + ".upload:{0}");
    Path config = LegacyJvm.config(dir, lines.toArray(String[]::new));
    Path bucket = dir.resolve("bucket");
    long key = AdvisoryKeys.keyOfText(prefix + ".upload:second");
    try (ForkedJvm app = LegacyJvm.start(config, bucket);
        Connection other = DB.dataSource().getConnection();
        Statement st = other.createStatement()) {
      st.execute("SELECT pg_advisory_lock(" + key + ")");

      app.send("upload second");
      assertThat(app.awaitLine(l -> true, ANSWER))
          .startsWith("failed WriterFenceBusyException")
          .contains(prefix + "-second");
      assertThat(bucket.resolve("second")).doesNotExist();

      // Another argument is another key: not busy.
      app.send("upload first");
      assertThat(app.awaitLine(l -> true, ANSWER)).startsWith("uploaded first");

      st.execute("SELECT pg_advisory_unlock(" + key + ")");
      app.send("upload second");
      assertThat(app.awaitLine(l -> true, ANSWER)).startsWith("uploaded second");
      assertThat(bucket.resolve("second")).exists();
    }
  }
}
