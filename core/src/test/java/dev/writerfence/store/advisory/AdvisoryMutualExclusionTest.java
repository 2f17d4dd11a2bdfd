package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Hammer;
import dev.writerfence.testing.Pools;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * One writer at a time on the advisory-lock backend: threads of this JVM and of two forked JVMs
 * enter one fenced critical section again and again; every section is recorded with database times
 * and its fencing token, and the record is checked afterwards.
 */
class AdvisoryMutualExclusionTest {
  private static final Duration HAMMER = Duration.ofSeconds(3);
  private static final int PROCESSES = 2;
  private static final int THREADS_PER_PROCESS = 4;
  private static final int THREADS_HERE = 4;

  @Test
  void twelveThreadsInThreeJvmsNeverOverlapAndTokensRiseInTimeOrder() throws Exception {
    String name = FenceNames.random("advisory-hammer");
    String table = "advisory_sections_" + UUID.randomUUID().toString().replace("-", "");
    CriticalSections record = new CriticalSections(DB.dataSource(), table).create();
    List<ForkedJvm> processes = new ArrayList<>();
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", THREADS_HERE + 1);
        AdvisoryLockStore store =
            AdvisoryLockStore.create(pool, THREADS_HERE + 1, FenceSchema.DEFAULT_SCHEMA)) {
      for (int i = 0; i < PROCESSES; i++) {
        processes.add(
            ForkedJvm.start(
                AdvisoryWriterProcess.class,
                DB.jdbcUrl(),
                name,
                String.valueOf(THREADS_PER_PROCESS),
                String.valueOf(HAMMER.toMillis()),
                table,
                "process-" + i));
      }
      for (ForkedJvm process : processes) {
        process.awaitLine("ready", Duration.ofSeconds(60));
      }
      processes.forEach(p -> p.send("go"));
      Hammer.Outcome here =
          Hammer.run(
              WriterFence.builder(store).build(), name, record, "test-jvm", THREADS_HERE, HAMMER);

      assertThat(here.failures()).isEmpty();
      int sections = here.sections();
      int busy = here.busy();
      for (ForkedJvm process : processes) {
        String[] done = process.awaitLine("done ", Hammer.SERVED_BY.plusMinutes(1)).split(" ");
        assertThat(done[3]).as("failures in %s", process).isEqualTo("0");
        sections += Integer.parseInt(done[1]);
        busy += Integer.parseInt(done[2]);
      }

      List<Section> recorded = record.load();
      assertThat(recorded).hasSize(sections);
      assertThat(recorded)
          .extracting(s -> s.writer().replaceAll("/.*", ""))
          .as("every JVM got the lock")
          .contains("test-jvm", "process-0", "process-1");
      assertThat(SectionChecker.check(recorded).violations()).isEmpty();
      assertThat(AdvisoryTestSupport.holdersOf(AdvisoryKeys.keyOf(name))).isZero();
      System.out.printf(
          "advisory hammer: %d sections, %d busy calls in %s%n", sections, busy, HAMMER);
    } finally {
      processes.forEach(ForkedJvm::close);
    }
  }
}
