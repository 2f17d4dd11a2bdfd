package dev.writerfence.faults.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue's SQL protocol is language-neutral (issue 27): Java writers ({@link WriterFence#run})
 * and a Python writer that follows the documented protocol with asyncpg ({@code
 * src/test/interop/python/wait_turn.py}: {@code writer_fence.acquire_turn}, {@code LISTEN
 * writer_fence_release}, {@code writer_fence.release}) contend for one fence. Checked afterwards
 * from the record, every time the database clock: no two sections overlap, fencing tokens rise in
 * the order the sections ran, a waiter queued before another asked is served first whatever its
 * language, the Python writer was handed the lease on a release's notification, the Java fences
 * proved theirs ({@code notified}), and no ticket is left.
 */
class QueueTurnInteropTest {
  private static final String DATABASE = "queue_turn_interop";
  private static final String FENCE = "interop: turns";
  private static final Path WAIT_TURN = Path.of("src/test/interop/python/wait_turn.py");
  private static final int ROUNDS = 8;
  private static final int HOLD_MS = 40;

  /**
   * One critical section, every time the database clock in microseconds since the epoch.
   *
   * @param writer the holder label
   * @param token its lease's fencing token
   * @param askUs read before the writer asked for the lease
   * @param queuedUs read after a poll of the queue answered busy (its ticket taken by then), or
   *     {@code null} when it was never queued
   * @param startUs read after the lease was granted
   * @param endUs read before it was released
   * @param woken whether the grant came from the poll right after a release's notification
   *     (reported by the Python writer; {@code false} for Java's)
   */
  record Section(
      String writer,
      long token,
      long askUs,
      Long queuedUs,
      long startUs,
      long endUs,
      boolean woken) {}

  @BeforeAll
  static void database() throws SQLException {
    EmbeddedDatabase pg = Deployment.createRole();
    pg.execute("DROP DATABASE IF EXISTS " + DATABASE, "CREATE DATABASE " + DATABASE);
    FenceSchema.defaults()
        .grantTo(Deployment.ROLE)
        .install(pg.dataSource(DATABASE, "postgres", null));
  }

  private static Database db() {
    EmbeddedDatabase pg = EmbeddedDatabase.get();
    return new Database(
        DATABASE,
        pg.port(),
        Deployment.ROLE,
        Deployment.ROLE,
        pg.dataSource(DATABASE, Deployment.ROLE, Deployment.ROLE));
  }

  @Test
  void javaWritersAndAPythonWriterTakeTurnsInOrder_theReleaseWakesThePythonWaiter()
      throws Exception {
    Leg.PYTHON.require();
    Database db = db();
    List<Section> sections = Collections.synchronizedList(new ArrayList<>());
    List<JavaWriter> javaWriters = List.of(new JavaWriter("java-1"), new JavaWriter("java-2"));
    ExecutorService threads = Executors.newFixedThreadPool(javaWriters.size());
    String pythonOut;
    try {
      Leg.Running python =
          Leg.PYTHON.start(
              WAIT_TURN,
              "turns",
              db,
              "python",
              "--fence",
              FENCE,
              "--rounds",
              String.valueOf(ROUNDS),
              "--hold-ms",
              String.valueOf(HOLD_MS));
      assertThat(python.line()).isEqualTo("ready");
      CountDownLatch ready = new CountDownLatch(javaWriters.size());
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> running = new ArrayList<>();
      for (JavaWriter w : javaWriters) {
        running.add(threads.submit(() -> w.run(db, sections, ready, go)));
      }
      // Every writer connected and warmed up before any round, so that they contend.
      assertThat(ready.await(60, TimeUnit.SECONDS)).as("the Java writers are ready").isTrue();
      python.send("go");
      go.countDown();
      pythonOut = python.finish();
      for (Future<?> f : running) {
        f.get(180, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    for (String line : pythonOut.lines().toList()) {
      // section HOLDER TOKEN ASK QUEUED|- START END PLACE WOKEN
      String[] f = line.split(" ");
      if (f[0].equals("section")) {
        sections.add(
            new Section(
                f[1],
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                f[4].equals("-") ? null : Long.valueOf(f[4]),
                Long.parseLong(f[5]),
                Long.parseLong(f[6]),
                f[8].equals("1")));
      }
    }
    assertThat(pythonOut).endsWith("done");

    List<Section> byToken =
        sections.stream().sorted(Comparator.comparingLong(Section::token)).toList();
    assertThat(byToken)
        .extracting(Section::writer)
        .filteredOn("python"::equals)
        .as("the Python writer was served every round")
        .hasSize(ROUNDS);
    for (JavaWriter w : javaWriters) {
      assertThat(byToken).filteredOn(s -> s.writer().equals(w.label)).hasSize(ROUNDS);
      assertThat(w.wakeUp).as("how %s learnt of releases", w.label).isEqualTo("notified");
    }
    assertThat(overlaps(byToken)).as("sections that overlap, in token order").isEmpty();
    assertThat(servedOutOfOrder(byToken)).as("waits served out of their queue order").isEmpty();
    // The order was put to the test across languages, both ways.
    assertThat(queuedBefore(byToken, "python", "java")).isPositive();
    assertThat(queuedBefore(byToken, "java", "python")).isPositive();
    assertThat(byToken)
        .filteredOn(s -> s.writer().equals("python") && s.woken())
        .as("Python grants handed over by a release's notification, not a safety-net poll")
        .isNotEmpty();
    assertThat(ticketsLeft()).as("tickets left after every wait was served").isZero();
  }

  private static long ticketsLeft() throws SQLException {
    try (Connection c =
            EmbeddedDatabase.get().dataSource(DATABASE, "postgres", null).getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM writer_fence.queue_status WHERE fence_name = ?")) {
      ps.setString(1, FENCE);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * @param byToken every section, in fencing-token order
   * @return each section that started before the one before it in token order had ended
   */
  private static List<String> overlaps(List<Section> byToken) {
    List<String> found = new ArrayList<>();
    for (int i = 1; i < byToken.size(); i++) {
      Section before = byToken.get(i - 1);
      Section s = byToken.get(i);
      if (s.startUs() <= before.endUs()) {
        found.add(s + " began before " + before + " ended");
      }
    }
    return found;
  }

  /**
   * A waiter whose ticket was taken before another writer even asked must be served first: its
   * ticket stays live (every writer polls within the lapse) and all have the same priority.
   *
   * @return each pair served the other way round
   */
  private static List<String> servedOutOfOrder(List<Section> byToken) {
    List<String> found = new ArrayList<>();
    for (Section first : byToken) {
      for (Section later : byToken) {
        if (first.queuedUs() != null
            && first.queuedUs() < later.askUs()
            && first.token() > later.token()) {
          found.add(first + " was queued before " + later + " asked, but served after it");
        }
      }
    }
    return found;
  }

  /** Pairs where a writer of {@code first} was queued before a writer of {@code later} asked. */
  private static long queuedBefore(List<Section> byToken, String first, String later) {
    return byToken.stream()
        .filter(a -> a.writer().startsWith(first) && a.queuedUs() != null)
        .mapToLong(
            a ->
                byToken.stream()
                    .filter(b -> b.writer().startsWith(later) && a.queuedUs() < b.askUs())
                    .count())
        .sum();
  }

  /** A Java writer: its own fence, ROUNDS fenced sections of HOLD_MS, its clock reads recorded. */
  private static final class JavaWriter {
    final String label;
    volatile String wakeUp;

    JavaWriter(String label) {
      this.label = label;
    }

    Void run(Database db, List<Section> sections, CountDownLatch ready, CountDownLatch go)
        throws Exception {
      try (Connection clock = db.dataSource().getConnection()) {
        Long[] queued = new Long[1];
        FenceListener listener =
            new FenceListener() {
              @Override
              public void busyAttempt(FenceRequest request, int attempt) {
                // From the second statement on, an attempt is a poll of the queue: the ticket is
                // taken.
                if (attempt >= 2 && queued[0] == null) {
                  queued[0] = micros(clock);
                }
              }
            };
        try (WriterFence fence =
            WriterFence.builder(db.dataSource())
                .defaultHolderLabel(label)
                .defaultTtl(Duration.ofSeconds(60))
                .retryPolicy(BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(60)))
                .listener(listener)
                .build()) {
          fence.run(FenceRequest.builder(FENCE).build(), () -> {}); // loads what a round needs
          ready.countDown();
          go.await();
          for (int round = 0; round < ROUNDS; round++) {
            queued[0] = null;
            long ask = micros(clock);
            fence.runWithLease(
                FenceRequest.builder(FENCE).build(),
                lease -> {
                  long start = micros(clock);
                  Thread.sleep(HOLD_MS);
                  sections.add(
                      new Section(
                          label,
                          lease.fencingToken(),
                          ask,
                          queued[0],
                          start,
                          micros(clock),
                          false));
                });
          }
          wakeUp = fence.queueWakeUp();
        }
      }
      return null;
    }
  }

  /** The database clock in microseconds since the epoch. */
  private static long micros(Connection c) {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("reading the database clock failed", e);
    }
  }
}
