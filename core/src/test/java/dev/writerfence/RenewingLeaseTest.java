package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.lease.PgLeaseStore;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rules {@link RenewingLease} keeps around the store's lease, on a real lease row: a renewal
 * counts from when its statement was sent, loss is told once and never for a released lease.
 */
class RenewingLeaseTest extends FenceTestSupport {
  private static final Duration SHORT_TTL = Duration.ofSeconds(2);
  private static final long VALID_NANOS =
      SHORT_TTL.toNanos() - SHORT_TTL.toNanos() / 10; // less the margin

  private final PgLeaseStore store =
      new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
  private final LeaseKeeper keeper = new LeaseKeeper(WriterFence.MIN_RENEW_INTERVAL, true);

  @AfterEach
  void stopKeeper() {
    keeper.close();
  }

  /** The store's lease, its renew statements held back until the test lets them through. */
  private static final class HeldBackLease implements StoreLease {
    final StoreLease delegate;
    final CountDownLatch letThrough = new CountDownLatch(1);
    final AtomicLong firstRenewCalled = new AtomicLong();

    HeldBackLease(StoreLease delegate) {
      this.delegate = delegate;
    }

    @Override
    public long fencingToken() {
      return delegate.fencingToken();
    }

    @Override
    public Instant acquiredAt() {
      return delegate.acquiredAt();
    }

    @Override
    public Instant expiresAt() {
      return delegate.expiresAt();
    }

    @Override
    public Optional<Instant> renew(Duration ttl) {
      firstRenewCalled.compareAndSet(0, System.nanoTime());
      try {
        letThrough.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate.renew(ttl);
    }

    @Override
    public boolean release() {
      return delegate.release();
    }
  }

  private HeldLease hold(String fenceName, StoreLease lease, UUID token, long sentNanos) {
    LocalTurns turns = new LocalTurns(store, WriterFence.DEFAULT_QUEUE_LAPSE);
    RenewingLease.Context keeping =
        keeper.context(
            Retry.ofDefaults("renewing-lease-test"),
            TimeUnit.SECONDS.toNanos(11),
            null,
            false,
            new AtomicBoolean());
    return HeldLease.hold(
        keeping,
        store,
        HeldLease.Grant.of(lease, token, sentNanos),
        fenceName,
        "renewing-lease-test",
        SHORT_TTL,
        turns.takeFree(fenceName),
        "RenewingLeaseTest");
  }

  @Test
  void aRenewalCountsFromWhenItsStatementWasSentNotFromItsAnswer() throws Exception {
    String fenceName = fenceName("sent");
    UUID token = UUID.randomUUID();
    long sent = System.nanoTime();
    HeldBackLease lease =
        new HeldBackLease(
            store.acquire(fenceName, token, "renewing-lease-test", SHORT_TTL).orElseThrow());
    HeldLease held = hold(fenceName, lease, token, sent);
    Instant firstExpiry = held.expiresAt();

    await().atMost(Duration.ofSeconds(5)).until(() -> lease.firstRenewCalled.get() != 0);
    long called = lease.firstRenewCalled.get();
    Thread.sleep(300); // the answer comes 300 ms after the statement was sent
    lease.letThrough.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> held.expiresAt().isAfter(firstExpiry));

    long now = System.nanoTime();
    long validUntil = now + held.nanosLeft(); // at most the deadline itself
    assertThat(validUntil)
        .as(
            "the deadline counts from the renew call (when the statement was sent), not from the"
                + " answer 300 ms later")
        .isLessThanOrEqualTo(called + VALID_NANOS);
    assertThat(held.isValid()).isTrue();
    assertThat(held.release()).isTrue();
  }

  @Test
  void lossIsToldOnceAndNeverForAReleasedLease() throws Exception {
    HeldLease lost = holdNew("lost");
    List<String> told = new CopyOnWriteArrayList<>();
    lost.onLost(told::add);

    assertThat(lost.renewing().markLost("first")).isTrue();
    assertThat(lost.renewing().markLost("second")).as("lost once, whoever finds it").isFalse();
    await().atMost(Duration.ofSeconds(5)).until(() -> !told.isEmpty());
    assertThat(told).containsExactly("first");
    assertThat(lost.isValid()).isFalse();
    assertThat(lost.lostReason()).isEqualTo("first");
    lost.release();

    HeldLease released = holdNew("released");
    List<String> never = new CopyOnWriteArrayList<>();
    released.onLost(never::add);
    assertThat(released.release()).isTrue();
    assertThat(released.renewing().markLost("after the release"))
        .as("a released lease is not lost")
        .isFalse();
    assertThat(released.lostReason()).isNull();
    assertThat(never).isEmpty();
  }

  /** A new lease on a fence name of its own, held. */
  private HeldLease holdNew(String what) {
    String fenceName = fenceName(what);
    UUID token = UUID.randomUUID();
    long sent = System.nanoTime();
    return hold(
        fenceName,
        store.acquire(fenceName, token, "renewing-lease-test", SHORT_TTL).orElseThrow(),
        token,
        sent);
  }

  private static String fenceName(String what) {
    return "renewing-lease-" + what + "-" + UUID.randomUUID();
  }
}
