package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.RecordingLeaseStore;
import dev.writerfence.testing.SwitchableDataSource;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Renewal, loss and close of held leases, against the real database. */
class RenewalTest extends FenceTestSupport {
  private static final Duration SHORT_TTL = Duration.ofSeconds(2);

  /** Records every loss, with the monotonic time it was heard. */
  static final class LossListener implements FenceListener {
    final List<String> reasons = new CopyOnWriteArrayList<>();
    final List<Long> heardAt = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    final CountDownLatch lost = new CountDownLatch(1);

    @Override
    public void lost(FenceLease lease, String reason) {
      heardAt.add(System.nanoTime());
      reasons.add(reason);
      threads.add(Thread.currentThread().getName());
      lost.countDown();
    }
  }

  @Test
  void heldLeaseIsRenewedSoOthersStayBusyAndNoRenewalFollowsTheRelease() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence holder = WriterFence.builder(store).renewInterval(Duration.ofMillis(600)).build();
    WriterFence other = fence(DB.dataSource()).withoutRenewal().build();
    FenceLease lease =
        holder
            .tryAcquire(FenceRequest.builder(name).holderLabel("renewed").ttl(SHORT_TTL).build())
            .orElseThrow();
    java.time.Instant firstExpiry = lease.expiresAt();

    List<Boolean> otherGotIt = new ArrayList<>();
    List<OffsetDateTime> expiries = new ArrayList<>();
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(6);
    // Six seconds and at least eight samples: on a loaded machine one sample can take a second.
    while (System.nanoTime() < end || otherGotIt.size() < 8) {
      Optional<FenceLease> stolen =
          other.tryAcquire(FenceRequest.builder(name).holderLabel("other").ttl(TTL).build());
      otherGotIt.add(stolen.isPresent());
      stolen.ifPresent(other::release);
      expiries.add(sql.expiresAt(name));
      await().pollDelay(Duration.ofMillis(150)).until(() -> true);
    }

    assertThat(otherGotIt).containsOnly(false);
    assertThat(lease.isValid()).isTrue();
    assertThat(expiries.stream().distinct().count())
        .as("the expiry in lease_status keeps moving")
        .isGreaterThanOrEqualTo(3);
    assertThat(expiries).isSorted();
    assertThat(lease.expiresAt()).isAfter(firstExpiry.plusSeconds(4));
    // About one renewal per interval: never more often than scheduled; a loaded machine may run
    // fewer, and the moving expiry above already shows they keep coming.
    long intervals = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) / 600;
    assertThat(store.renewStarts()).hasSizeBetween(2, (int) intervals + 2);

    assertThat(holder.release(lease)).isTrue();
    long releasedAt = System.nanoTime();
    int renewsAtRelease = store.renewStarts().size();
    await("no renewal after the release")
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> store.renewStarts().size() == renewsAtRelease);
    assertThat(store.renewStarts()).allMatch(renewStart -> renewStart - releasedAt < 0);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void takeoverBehindItsBackMarksTheLeaseLostAtTheNextRenewal() throws Exception {
    LossListener listener = new LossListener();
    RecordingLeaseStore store = recordingStore();
    WriterFence fence =
        WriterFence.builder(store).renewInterval(Duration.ofMillis(200)).listener(listener).build();

    FenceLostException seen =
        fence.call(
            request("victim"),
            () -> {
              FenceLease lease = WriterFence.current(name).orElseThrow();
              lease.checkValid();
              DB.execute(
                  "UPDATE writer_fence.lease SET holder_token = gen_random_uuid()"
                      + " WHERE fence_name = '"
                      + name
                      + "'");
              assertThat(listener.lost.await(5, TimeUnit.SECONDS)).isTrue();
              assertThat(lease.isValid()).isFalse();
              // Still the call's lease until the call ends: the idiom current(name) then
              // checkValid() stops with the loss, not with a missing lease.
              assertThat(WriterFence.current(name))
                  .as("the call's lease, lost")
                  .containsSame(lease);
              assertThat(fence.currentLease(name)).containsSame(lease);
              return catchThrowableOfType(FenceLostException.class, lease::checkValid);
            });
    assertThat(WriterFence.current(name)).as("no longer held after the call").isEmpty();

    assertThat(seen.fenceName()).isEqualTo(name);
    assertThat(seen.fencingToken()).isEqualTo(sql.fencingToken(name));
    assertThat(seen.reason()).contains("expired or taken over");
    assertThat(seen).hasMessageContaining(name).hasMessageContaining("fencing token");
    assertThat(listener.reasons).hasSize(1);
    assertThat(listener.threads).containsExactly("writer-fence-renewal");
    // The release was still tried, and freed nothing: the row is the other "holder"'s.
    assertThat(store.releaseTokens()).hasSize(1);
    assertThat(sql.state(name)).isEqualTo("held");
  }

  @Test
  void unreachableDatabaseDuringRenewalMarksTheLeaseLostBeforeItsTtlEnds() throws Exception {
    LossListener listener = new LossListener();
    SwitchableDataSource db = new SwitchableDataSource(DB.dataSource());
    WriterFence fence =
        WriterFence.builder(new PgLeaseStore(db, SCHEMA, Duration.ofSeconds(1)))
            .renewInterval(Duration.ofMillis(300))
            .listener(listener)
            .build();
    long beforeAcquire = System.nanoTime();
    FenceLease lease =
        fence
            .tryAcquire(FenceRequest.builder(name).holderLabel("cut-off").ttl(SHORT_TTL).build())
            .orElseThrow();
    db.cutOff(); // before the first renewal, so the database's expiry is the acquire's

    assertThat(listener.lost.await(5, TimeUnit.SECONDS)).isTrue();
    long lostAfter = listener.heardAt.get(0) - beforeAcquire;
    System.out.printf(
        "lease lost %d ms after the acquire was sent (TTL %d ms)%n",
        TimeUnit.NANOSECONDS.toMillis(lostAfter), SHORT_TTL.toMillis());
    assertThat(lostAfter).isLessThan(SHORT_TTL.toNanos());
    assertThat(listener.reasons.get(0)).contains("could reach the database");
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid).isInstanceOf(FenceLostException.class);
    assertThat(fence.release(lease)).as("a failed release of a lost lease is not thrown").isFalse();

    db.restore();
    assertThat(sql.state(name)).isIn("held", "expired"); // nobody could free it
  }

  @Test
  void pausedPastItsTtlTheLeaseIsLostByTheMonotonicClockEvenBeforeARenewalRuns() {
    WriterFence fence = fence(DB.dataSource()).withoutRenewal().build();
    FenceLease lease =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("no-renewal")
                    .ttl(Duration.ofSeconds(1))
                    .build())
            .orElseThrow();
    assertThat(lease.isValid()).isTrue();

    await().atMost(Duration.ofSeconds(3)).until(() -> !lease.isValid());

    assertThat(lease.lostReason()).hasValueSatisfying(r -> assertThat(r).contains("TTL"));
    FenceLostException lost = catchThrowableOfType(FenceLostException.class, lease::checkValid);
    assertThat(lost.fencingToken()).isEqualTo(lease.fencingToken());
    fence.release(lease);
  }

  @Test
  void closeReleasesHeldLeasesStopsRenewalAndRefusesNewAcquires() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = WriterFence.builder(store).renewInterval(Duration.ofMillis(200)).build();
    FenceLease lease =
        fence
            .tryAcquire(FenceRequest.builder(name).holderLabel("closing").ttl(SHORT_TTL).build())
            .orElseThrow();
    await().until(() -> store.renewStarts().size() >= 1);

    fence.close();
    int renews = store.renewStarts().size();
    fence.close(); // idempotent

    assertThat(fence.isClosed()).isTrue();
    assertThat(sql.state(name)).isEqualTo("free");
    assertThat(store.releaseTokens()).containsExactly(lease.holderToken());
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::checkValid)
        .isInstanceOf(FenceLostException.class)
        .hasMessageContaining("released");
    assertThatThrownBy(
            () ->
                fence.tryAcquire(
                    FenceRequest.builder(name).holderLabel("late").ttl(SHORT_TTL).build()))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> fence.run(request("late"), () -> {}))
        .isInstanceOf(WriterFenceUnavailableException.class);
    await()
        .during(Duration.ofMillis(800))
        .atMost(Duration.ofSeconds(2))
        .until(() -> store.renewStarts().size() == renews);
  }
}
