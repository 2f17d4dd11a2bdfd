package dev.writerfence.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.faults.StreamingReplication.Mode;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.SectionReport;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A PostgreSQL failover under running writers: a Debian PostgreSQL 15 primary with one streaming
 * standby ({@link StreamingReplication}), the primary crashed (immediate shutdown) and the standby
 * promoted, the writers going on through a multi-host URL. Their sections are recorded on the test
 * JVM's embedded PostgreSQL, which the failover does not touch, and checked afterwards. Skipped
 * without Debian's PostgreSQL 15, failed without it when {@code CI=true}.
 */
class FailoverTest {
  private static final EmbeddedDatabase RECORD = EmbeddedDatabase.get();

  /** The writers' TTL: a grant the new primary still shows as held blocks them this long. */
  private static final Duration TTL = Duration.ofSeconds(3);

  /** The single holder's TTL: far longer than a failover, so only a renewal can tell it. */
  private static final Duration HOLD_TTL = Duration.ofSeconds(30);

  private static final Duration RENEW = Duration.ofMillis(300);
  private static final int THREADS = 4;
  private static final int PROCESS_THREADS = 2;
  private static final int SECTIONS = 20;

  /**
   * The standby misses the last grants, among them a single holder's; after the promotion that
   * holder is told at its next renewal, and every token the new primary issues exceeds every token
   * issued before, so its late write is refused. Needs the failover tokens of contract V3 (ADR 47):
   * with an earlier contract the promoted standby hands the stale holder's token out again.
   */
  @Test
  void C29_tokensAfterAnAsynchronousFailoverExceedEveryTokenIssuedBefore() throws Exception {
    String writersName = FenceNames.random("C29-writers");
    String grantName = FenceNames.random("C29-grant");
    CriticalSections log =
        new CriticalSections(RECORD.dataSource(), CriticalSections.freshTable("c29")).create();
    TokenCheckingTable storage =
        new TokenCheckingTable(RECORD.dataSource(), CriticalSections.freshTable("c29_storage"));
    LossWatch watch = new LossWatch();
    try (StreamingReplication replication = StreamingReplication.start(Mode.ASYNCHRONOUS);
        HikariDataSource pool = FaultWriter.pool(replication.failoverUrl(), THREADS + 2);
        ForkedJvm process = forkWriter(replication, writersName, log)) {
      WriterFence fence = WriterFence.builder(pool).defaultTtl(TTL).build();
      WriterFence holders = holderFence(pool, watch);
      process.send("go");
      WriterLoop writers = new WriterLoop(fence, writersName, TTL, log, "test-jvm", THREADS, 3);
      Instant start = log.now();
      awaitSections(log, start, "writers at work on the primary");

      // A grant the standby has (released before the cut), then one it misses.
      FenceLease replicated = holders.tryAcquire(request(grantName, "replicated")).orElseThrow();
      assertThat(holders.release(replicated)).isTrue();
      replication.awaitStandbyCaughtUp();
      replication.cutStandbyOff();
      Instant cut = log.now();
      FenceLease stale = holders.tryAcquire(request(grantName, "stale")).orElseThrow();
      assertThat(storage.write("object", stale.fencingToken(), "stale")).isTrue();
      awaitSections(log, cut, "grants on the primary that the standby misses");
      assertThat(standbyHolderToken(replication, grantName))
          .as("the standby does not have the last grant")
          .isNotEqualTo(stale.holderToken().toString());

      Instant crash = log.now();
      long crashedAt = System.nanoTime();
      replication.crashPrimary();
      replication.promoteStandby();
      Instant up = log.now();
      long timelineAfter = StreamingReplication.timeline(replication.standby());

      // The stale holder learns at its next renewal on the new primary, long before its TTL.
      assertThat(watch.await(HOLD_TTL.toSeconds())).as("the stale holder is told").isTrue();
      long lostAfterMillis = TimeUnit.NANOSECONDS.toMillis(watch.lostAtNanos() - crashedAt);
      assertThat(lostAfterMillis).as("lost before its TTL").isLessThan(HOLD_TTL.toMillis());
      assertThat(stale.isValid()).isFalse();
      assertThatThrownBy(stale::checkValid).isInstanceOf(FenceLostException.class);

      FenceLease next =
          await("an acquire on the new primary")
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(100))
              .ignoreExceptions()
              .until(
                  () -> holders.tryAcquire(request(grantName, "next")).orElse(null),
                  Objects::nonNull);
      assertThat(storage.write("object", next.fencingToken(), "next")).isTrue();
      boolean lateWriteLanded = storage.write("object", stale.fencingToken(), "stale");
      assertThat(holders.release(next)).isTrue();
      // A writer in another language, through the SQL contract alone (psql, libpq).
      String psqlHolder = UUID.randomUUID().toString();
      long fromPsql =
          Long.parseLong(
              replication
                  .standby()
                  .psql(
                      "SELECT writer_fence.acquire('"
                          + grantName
                          + "', '"
                          + psqlHolder
                          + "', 'psql', 30)"));
      assertThat(
              replication
                  .standby()
                  .psql("SELECT writer_fence.release('" + grantName + "', '" + psqlHolder + "')"))
          .isEqualTo("t");

      awaitSections(log, up, "writers at work on the new primary");
      process.send("stop");
      WriterLoop.Outcome outcome = writers.stop();
      String[] done = process.awaitLine("done ", Duration.ofSeconds(60)).split(" ");
      holders.close();
      fence.close();

      List<Section> recorded = log.load();
      long maxBefore =
          LongStream.concat(
                  tokens(recorded, s -> s.enteredAt().isBefore(crash)),
                  LongStream.of(replicated.fencingToken(), stale.fencingToken()))
              .max()
              .orElseThrow();
      long minAfter =
          LongStream.concat(
                  tokens(recorded, s -> s.enteredAt().isAfter(up)),
                  LongStream.of(next.fencingToken(), fromPsql))
              .min()
              .orElseThrow();
      SectionReport report = SectionChecker.check(recorded);
      // Asynchronous replication keeps no exclusion across a failover (a lost grant and a new
      // one can overlap): the overlaps are printed, the tokens are what is asserted.
      List<SectionReport.Violation> tokenViolations =
          report.violations().stream().filter(v -> v.kind() != SectionReport.Kind.OVERLAP).toList();
      System.out.printf(
          "C29 asynchronous failover: timeline %d after the promotion; %d sections (%d after the"
              + " promotion), %d unavailable calls here; tokens up to %d before the crash, from %d"
              + " after the promotion; stale holder (token %d) lost %d ms after the crash (%s);"
              + " next fencing token %d; stale late write %s; %d overlaps, %d token violations%n",
          timelineAfter,
          recorded.size(),
          recorded.stream().filter(s -> s.enteredAt().isAfter(up)).count(),
          outcome.unavailable(),
          maxBefore,
          minAfter,
          stale.fencingToken(),
          lostAfterMillis,
          watch.reason(),
          next.fencingToken(),
          lateWriteLanded ? "LANDED" : "refused",
          report.violations().size() - tokenViolations.size(),
          tokenViolations.size());

      assertThat(outcome.failures()).isEmpty();
      assertThat(done[4]).as("failures in the writer process").isEqualTo("0");
      assertThat(timelineAfter).as("the promotion began a new timeline").isEqualTo(2);
      assertThat(next.fencingToken())
          .as("the next holder's token exceeds the stale holder's")
          .isGreaterThan(stale.fencingToken());
      assertThat(lateWriteLanded).as("the stale holder's late write is refused").isFalse();
      assertThat(fromPsql)
          .as("psql's acquire through the contract, after the Java writer's")
          .isGreaterThan(next.fencingToken());
      assertThat(minAfter)
          .as("every token after the promotion exceeds every token before it")
          .isGreaterThan(maxBefore);
      assertThat(tokenViolations).as("tokens strictly increase in time order").isEmpty();
    }
  }

  /**
   * Every grant reached the standby before it was acknowledged, so the holder keeps its lease on
   * the promoted standby under the same holder token, its renewals land there, and its contenders
   * get in only after its release.
   */
  @ParameterizedTest
  @EnumSource(
      value = Mode.class,
      names = {"SYNCHRONOUS_ON", "SYNCHRONOUS_REMOTE_APPLY"})
  void C30_aSynchronousStandbyKeepsTheHolderAcrossAFailover(Mode mode) throws Exception {
    String writersName = FenceNames.random("C30-writers");
    String heldName = FenceNames.random("C30-held");
    CriticalSections writersLog =
        new CriticalSections(RECORD.dataSource(), CriticalSections.freshTable("c30")).create();
    CriticalSections heldLog =
        new CriticalSections(RECORD.dataSource(), CriticalSections.freshTable("c30_held")).create();
    LossWatch watch = new LossWatch();
    try (StreamingReplication replication = StreamingReplication.start(mode);
        HikariDataSource pool = FaultWriter.pool(replication.failoverUrl(), 2 * THREADS + 2);
        ForkedJvm process = forkWriter(replication, writersName, writersLog);
        CriticalSections.Recorder holderRecord = heldLog.recorder()) {
      WriterFence fence = WriterFence.builder(pool).defaultTtl(TTL).build();
      WriterFence holders = holderFence(pool, watch);
      FenceLease held = holders.tryAcquire(request(heldName, "holder")).orElseThrow();
      long section = holderRecord.enter("holder", held.fencingToken());
      process.send("go");
      WriterLoop writers =
          new WriterLoop(fence, writersName, TTL, writersLog, "test-jvm", THREADS, 3);
      WriterLoop contenders =
          new WriterLoop(fence, heldName, TTL, heldLog, "contender", THREADS, 3);
      Instant start = writersLog.now();
      awaitSections(writersLog, start, "writers at work on the primary");
      String heldToken = held.holderToken().toString();
      // Committed on the standby (flushed with "on", applied with "remote_apply"): once applied
      // it can be read there.
      await("the standby shows the holder")
          .atMost(Duration.ofSeconds(10))
          .until(() -> heldToken.equals(standbyHolderToken(replication, heldName)));
      Instant expiryBeforeCrash = standbyExpiry(replication, heldName);

      replication.crashPrimary();
      replication.promoteStandby();
      Instant up = writersLog.now();
      await("the holder's renewals continue on the new primary")
          .atMost(HOLD_TTL)
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(
              () ->
                  heldToken.equals(standbyHolderToken(replication, heldName))
                      && standbyExpiry(replication, heldName).isAfter(expiryBeforeCrash));
      assertThat(held.isValid()).isTrue();
      held.checkValid();
      awaitSections(writersLog, up, "writers at work on the new primary");

      holderRecord.exit(section);
      assertThat(holders.release(held)).as("released on the new primary by its holder").isTrue();
      Instant released = heldLog.now();
      awaitSections(heldLog, released, "contenders in after the release");

      process.send("stop");
      WriterLoop.Outcome outcome = writers.stop();
      WriterLoop.Outcome contended = contenders.stop();
      String[] done = process.awaitLine("done ", Duration.ofSeconds(60)).split(" ");
      holders.close();
      fence.close();

      List<Section> recorded = writersLog.load();
      List<Section> heldRecord = heldLog.load();
      SectionReport writersReport = SectionChecker.check(recorded);
      SectionReport heldReport = SectionChecker.check(heldRecord);
      System.out.printf(
          "C30 synchronous failover (%s): %d writer sections (%d after the promotion), %d"
              + " unavailable; lease (fencing token %d) kept by its holder token, %d contender sections all after its release,"
              + " %d contender calls busy; violations: %d writers, %d held fence%n",
          mode,
          recorded.size(),
          recorded.stream().filter(s -> s.enteredAt().isAfter(up)).count(),
          outcome.unavailable(),
          held.fencingToken(),
          heldRecord.size() - 1,
          contended.busy(),
          writersReport.violations().size(),
          heldReport.violations().size());

      assertThat(outcome.failures()).isEmpty();
      assertThat(contended.failures()).isEmpty();
      assertThat(done[4]).as("failures in the writer process").isEqualTo("0");
      assertThat(watch.await(0)).as("no lease of the holder's fence was lost").isFalse();
      assertThat(writersReport.violations()).isEmpty();
      assertThat(heldReport.violations()).as("nobody else in before the holder released").isEmpty();
      assertThat(heldRecord.get(0).writer()).isEqualTo("holder");
    }
  }

  /** A writer process of {@link #PROCESS_THREADS} threads on the fence, ready for "go". */
  private static ForkedJvm forkWriter(
      StreamingReplication replication, String fenceName, CriticalSections log) {
    return FaultWriter.fork(
        FaultWriter.target(replication.failoverUrl(), fenceName, log, RECORD),
        PROCESS_THREADS,
        (int) TTL.toSeconds(),
        3,
        "process");
  }

  /** The fence of the single holders: long TTL, frequent renewals, losses told to {@code watch}. */
  private static WriterFence holderFence(HikariDataSource pool, LossWatch watch) {
    return WriterFence.builder(pool)
        .defaultTtl(HOLD_TTL)
        .renewInterval(RENEW)
        .listener(watch)
        .build();
  }

  private static FenceRequest request(String name, String holder) {
    return FenceRequest.builder(name).holderLabel(holder).ttl(HOLD_TTL).build();
  }

  private static void awaitSections(CriticalSections log, Instant after, String what) {
    await(what)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> log.sectionsEnteredAfter(after) >= SECTIONS);
  }

  private static LongStream tokens(List<Section> sections, Predicate<Section> which) {
    return sections.stream().filter(which).mapToLong(Section::fencingToken);
  }

  /** The holder token in the fence's row on the standby (read as the superuser), or "". */
  private static String standbyHolderToken(StreamingReplication replication, String fenceName)
      throws SQLException {
    return StreamingReplication.query(
        replication.standby(),
        "SELECT coalesce(holder_token::text, '') FROM writer_fence.lease WHERE fence_name = '"
            + fenceName
            + "'");
  }

  private static Instant standbyExpiry(StreamingReplication replication, String fenceName)
      throws SQLException {
    return Instant.ofEpochMilli(
        Long.parseLong(
            StreamingReplication.query(
                replication.standby(),
                "SELECT (extract(epoch FROM expires_at) * 1000)::bigint FROM writer_fence.lease"
                    + " WHERE fence_name = '"
                    + fenceName
                    + "'")));
  }
}
