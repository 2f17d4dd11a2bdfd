package dev.writerfence.store.advisory;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.Hammer;
import dev.writerfence.testing.Pools;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A writer process on the advisory-lock backend: {@code URL NAME THREADS MILLIS TABLE WRITER}. It
 * prints {@code ready}, waits for {@code go} on standard input, runs {@link Hammer} for MILLIS
 * recording into TABLE, then prints {@code done SECTIONS BUSY FAILURES} and ends.
 */
public final class AdvisoryWriterProcess {
  private AdvisoryWriterProcess() {}

  /**
   * @param args JDBC URL, fence name, threads, milliseconds, table, writer
   */
  public static void main(String[] args) throws Exception {
    String url = args[0];
    int threads = Integer.parseInt(args[2]);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (HikariDataSource pool = Pools.warmPool(url, "postgres", threads + 1);
        AdvisoryLockStore store =
            AdvisoryLockStore.create(pool, threads + 1, FenceSchema.DEFAULT_SCHEMA)) {
      WriterFence fence = WriterFence.builder(store).build();
      PGSimpleDataSource direct = new PGSimpleDataSource();
      direct.setURL(url);
      direct.setUser("postgres");
      CriticalSections record = new CriticalSections(direct, args[4]);
      System.out.println("ready");
      String line;
      while ((line = in.readLine()) != null && !line.equals("go")) {
        // wait for the start
      }
      Hammer.Outcome outcome =
          Hammer.run(
              fence, args[1], record, args[5], threads, Duration.ofMillis(Long.parseLong(args[3])));
      outcome.failures().forEach(Throwable::printStackTrace);
      System.out.println(
          "done " + outcome.sections() + " " + outcome.busy() + " " + outcome.failures().size());
    }
    System.exit(0);
  }
}
