package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.WriterFence;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.LeaseStatus;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What every backend of {@link LeaseStore} must do, run against a real database by each backend's
 * subclass: one winner, busy at once, the same holder token gets its lease back, release only by
 * the holder (through the handle its acquire returned), tokens that grow, renew only while held,
 * status of a held fence; and, hammered by threads of this JVM and of forked writer JVMs through
 * {@code WriterFence}, a record of critical sections in which none overlaps and fencing tokens rise
 * in time order.
 */
public abstract class LeaseStoreContract {
  /** Threads of the race; the store under test must serve this many attempts at once. */
  public static final int RACERS = 8;

  private static final Duration TTL = Duration.ofSeconds(30);

  private static final Duration HAMMER = Duration.ofSeconds(3);
  private static final int HAMMER_PROCESSES = 2;
  private static final int HAMMER_THREADS_PER_PROCESS = 4;
  private static final int HAMMER_THREADS_HERE = 4;

  /** This test's own fence name. */
  protected String name;

  /**
   * @return the store under test; the same instance for the whole test
   */
  protected abstract LeaseStore store();

  /**
   * @return what opens the store under test in a forked writer JVM, at {@link #storeUrl()}
   */
  protected abstract Class<? extends LeaseStoreOpener> opener();

  /**
   * @return the JDBC URL at which forked writer JVMs open the store under test
   */
  protected abstract String storeUrl();

  @BeforeEach
  void freshFenceName(TestInfo test) {
    name = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("contract"));
  }

  @Test
  public void oneHolderAtATimeAndBusyAnswersAtOnce() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "first", TTL).orElseThrow();

    Optional<StoreLease> second = store().acquire(name, UUID.randomUUID(), "second", TTL);

    // Busy is an answer given while the holder still holds, not a wait for its release.
    assertThat(second).isEmpty();
    assertThat(store().status(name))
        .hasValueSatisfying(s -> assertThat(s.holderLabel()).isEqualTo("first"));
    assertThat(held.fencingToken()).isPositive();
    assertThat(held.release()).isTrue();
  }

  @Test
  public void theSameHolderTokenGetsItsCurrentLeaseBack() {
    UUID holder = UUID.randomUUID();
    StoreLease first = store().acquire(name, holder, "first", TTL).orElseThrow();

    StoreLease again = store().acquire(name, holder, "first", TTL).orElseThrow();

    assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
    assertThat(again.acquiredAt()).isEqualTo(first.acquiredAt());
    assertThat(first.release()).isTrue();
    assertThat(again.release()).as("one hold, released once").isFalse();
  }

  @Test
  public void releaseFreesOnlyForItsHolderAndTheNextHolderGetsAHigherToken() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();

    assertThat(store().acquire(name, UUID.randomUUID(), "late", TTL)).as("still held").isEmpty();
    assertThat(held.release()).isTrue();
    assertThat(held.release()).as("twice").isFalse();
    StoreLease next = store().acquire(name, UUID.randomUUID(), "next", TTL).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    assertThat(held.release()).as("the old handle frees nothing of the next holder").isFalse();
    assertThat(store().status(name).filter(LeaseStatus::isHeld)).as("next still holds").isPresent();
    assertThat(next.release()).isTrue();
  }

  @Test
  public void renewAnswersForAHeldLeaseOnly() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();

    Optional<java.time.Instant> renewed = held.renew(Duration.ofSeconds(60));

    assertThat(renewed).hasValueSatisfying(t -> assertThat(t).isAfter(held.acquiredAt()));
    assertThat(held.release()).isTrue();
    assertThat(held.renew(Duration.ofSeconds(60))).as("released").isEmpty();
  }

  @Test
  public void statusShowsTheHoldAndNoHoldAfterRelease() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "shown", TTL).orElseThrow();

    LeaseStatus status = store().status(name).orElseThrow();

    assertThat(status.isHeld()).isTrue();
    assertThat(status.holderLabel()).isEqualTo("shown");
    assertThat(status.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(store().statusAll()).extracting(LeaseStatus::fenceName).contains(name);
    assertThat(held.release()).isTrue();
    assertThat(store().status(name).filter(LeaseStatus::isHeld)).isEmpty();
  }

  @Test
  public void aRaceOfManyThreadsHasExactlyOneWinner() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(RACERS);
    try {
      for (int round = 0; round < 5; round++) {
        String fence = name + "/" + round;
        CyclicBarrier start = new CyclicBarrier(RACERS);
        List<Future<Optional<StoreLease>>> attempts = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
          attempts.add(
              threads.submit(
                  () -> {
                    start.await();
                    return store().acquire(fence, UUID.randomUUID(), "racer", TTL);
                  }));
        }
        List<StoreLease> won = new ArrayList<>();
        for (Future<Optional<StoreLease>> attempt : attempts) {
          attempt.get().ifPresent(won::add);
        }
        assertThat(won).as("winners of round %d", round).hasSize(1);
        assertThat(won.get(0).release()).isTrue();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  public void threadsOfThreeJvmsNeverOverlapAndTokensRiseInTimeOrder() throws Exception {
    EmbeddedDatabase recordDb = EmbeddedDatabase.get();
    CriticalSections record =
        new CriticalSections(recordDb.dataSource(), CriticalSections.freshTable("contract"))
            .create();
    List<ForkedJvm> processes = new ArrayList<>();
    try {
      for (int i = 0; i < HAMMER_PROCESSES; i++) {
        processes.add(
            WriterProcess.forkHammer(
                opener(),
                storeUrl(),
                recordDb,
                record.table(),
                name,
                HAMMER_THREADS_PER_PROCESS,
                HAMMER,
                "process-" + i));
      }
      processes.forEach(p -> p.send("go"));
      Hammer.Outcome here =
          Hammer.run(
              WriterFence.builder(store()).build(),
              name,
              record,
              "test-jvm",
              HAMMER_THREADS_HERE,
              HAMMER);

      assertThat(here.failures()).isEmpty();
      int sections = here.sections();
      for (ForkedJvm process : processes) {
        String[] done = process.awaitLine("done ", Hammer.SERVED_BY.plusMinutes(1)).split(" ");
        assertThat(done[3]).as("failures in %s", process).isEqualTo("0");
        sections += Integer.parseInt(done[1]);
      }
      List<Section> recorded = record.load();
      SectionReport report = SectionChecker.check(recorded);
      assertThat(report.violations()).isEmpty();
      assertThat(report.sections()).isEqualTo(sections);
      assertThat(recorded)
          .extracting(s -> s.writer().replaceAll("[@/].*", ""))
          .as("every JVM got the lease")
          .contains("test-jvm", "process-0", "process-1");
      assertThat(report.handovers()).as("the writers took turns").isGreaterThan(HAMMER_PROCESSES);
    } finally {
      processes.forEach(ForkedJvm::close);
    }
  }
}
