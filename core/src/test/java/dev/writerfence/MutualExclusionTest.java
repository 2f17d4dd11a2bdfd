package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.testing.CountingListener;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Hammer;
import dev.writerfence.testing.Pools;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.WriterProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * One writer at a time under real contention: threads of this JVM and of two forked JVMs enter one
 * fenced critical section again and again; every section is recorded with database times and its
 * fencing token, and the record is checked afterwards.
 */
class MutualExclusionTest extends FenceTestSupport {
  private static final Duration HAMMER = Duration.ofSeconds(3);
  private static final int PROCESSES = 2;
  private static final int THREADS_PER_PROCESS = 4;
  private static final int THREADS_HERE = 8;

  @Test
  void sixteenThreadsInThreeJvmsNeverOverlapAndTokensRiseInTimeOrder() throws Exception {
    String table = "sections_" + UUID.randomUUID().toString().replace("-", "");
    CriticalSections record = new CriticalSections(DB.dataSource(), table).create();
    List<ForkedJvm> processes = new ArrayList<>();
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", THREADS_HERE)) {
      for (int i = 0; i < PROCESSES; i++) {
        processes.add(
            WriterProcess.fork(
                DB,
                SCHEMA,
                "hammer",
                name,
                String.valueOf(THREADS_PER_PROCESS),
                String.valueOf(HAMMER.toMillis()),
                table,
                "process-" + i));
      }
      CountingListener contention = new CountingListener();
      WriterFence fence = WriterFence.builder(pool).listener(contention).build();
      processes.forEach(p -> p.send("go"));
      Hammer.Outcome here = Hammer.run(fence, name, record, "test-jvm", THREADS_HERE, HAMMER);

      int sections = here.sections();
      assertThat(here.failures()).isEmpty();
      for (ForkedJvm process : processes) {
        String[] done = process.awaitLine("done ", Hammer.SERVED_BY.plusMinutes(1)).split(" ");
        assertThat(done[3]).as("failures in %s", process).isEqualTo("0");
        sections += Integer.parseInt(done[1]);
      }

      List<Section> recorded = record.load();
      assertThat(recorded).hasSize(sections);
      assertThat(contention.busyAttempts()).as("writers really contended").isPositive();
      assertThat(recorded)
          .extracting(s -> s.writer().replaceAll("[@/].*", ""))
          .as("every JVM got the lease")
          .contains("test-jvm", "process-0", "process-1");
      assertThat(SectionChecker.check(recorded).violations()).isEmpty();
    } finally {
      processes.forEach(ForkedJvm::close);
    }
  }
}
