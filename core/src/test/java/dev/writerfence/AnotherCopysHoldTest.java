package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFences;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.store.lease.PgLeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The thread's held-fence stack is shared with other copies of core in the JVM (the agent's
 * relocated one): a hold another copy pushed, in JDK types only, is shown by {@link
 * WriterFence#current} and joined by a fenced call of the same domain, and a lease of this copy's
 * {@code acquire} or {@code tryAcquire} is on the stack for the other copies to join until it is
 * released.
 */
class AnotherCopysHoldTest extends FenceTestSupport {

  @Test
  void holdOfAnotherCopyIsShownByCurrentAndJoinedInTheSameDomain() throws Exception {
    WriterFence fence = fence();
    UUID agentsToken = UUID.randomUUID();
    long token = sql.acquire(name, agentsToken, "agent", (int) TTL.toSeconds());
    Hold agents = Hold.of(name, domainOf(fence), token, agentsToken);
    HeldFenceStack.push(agents);
    try {
      FenceLease seen = WriterFence.current(name).orElseThrow();
      assertThat(seen.fencingToken()).isEqualTo(token);
      assertThat(seen.holderLabel()).isEqualTo("agent");
      assertThat(seen.holderToken()).isEqualTo(agents.holderToken());
      assertThat(fence.currentLease(name)).as("in this fence's domain").isPresent();

      long inside =
          fence
              .call(request("application"), () -> fence.currentLease(name).orElseThrow())
              .fencingToken();
      assertThat(inside).as("the fenced call ran inside the other copy's hold").isEqualTo(token);
      assertThat(sql.fencingToken(name)).as("no acquire of its own").isEqualTo(token);

      assertThatThrownBy(() -> fence.release(seen))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name)
          .hasMessageContaining("another copy of writer-fence");

      agents.valid().set(false);
      assertThat(seen.isValid()).as("the view reads the other copy's state").isFalse();
      assertThat(WriterFence.current(name)).as("a hold no longer valid").isEmpty();
    } finally {
      HeldFenceStack.pop(agents.lease());
      sql.release(name, agents.holderToken());
    }
  }

  @Test
  void holdOfAnotherCopyInAnotherDomainIsNotJoined() throws Exception {
    WriterFence fence = fence();
    Hold elsewhere =
        Hold.of(name, "lease-row another-cluster/postgres/" + SCHEMA, 7, UUID.randomUUID());
    HeldFenceStack.push(elsewhere);
    try {
      assertThat(WriterFence.current(name)).as("any domain").isPresent();
      assertThat(fence.currentLease(name)).as("this fence's domain").isEmpty();
      AtomicBoolean held = new AtomicBoolean();
      fence.run(request("application"), () -> held.set("held".equals(sql.state(name))));
      assertThat(held).as("the call took a lease of its own").isTrue();
      assertThat(sql.state(name)).isEqualTo("free");
    } finally {
      HeldFenceStack.pop(elsewhere.lease());
    }
  }

  @Test
  void leaseOfTryAcquireIsOnTheSharedStackUntilReleased() {
    WriterFence fence = fence();
    FenceLease lease = fence.tryAcquire(request("application")).orElseThrow();
    HeldFenceStack.Entry entry;
    try {
      entry =
          HeldFenceStack.held().stream().filter(e -> e.lease() == lease).findFirst().orElseThrow();
      assertThat(entry.fenceName()).isEqualTo(name);
      assertThat(entry.domainName()).isEqualTo(domainOf(fence));
      assertThat(entry.fencingToken()).isEqualTo(lease.fencingToken());
      assertThat(WriterFence.current(name)).containsSame(lease);
    } finally {
      fence.release(lease);
    }
    assertThat(entry.isValid()).isFalse();
    assertThat(HeldFences.holdsAny()).isFalse();
  }

  @Test
  void leaseOfAcquireReleasedOnAnotherThreadIsHeldNoMoreHere() throws Exception {
    WriterFence fence = fence();
    FenceLease lease = fence.acquire(request("application"));
    assertThat(HeldFences.holdsAny()).isTrue();

    Thread releaser = new Thread(() -> fence.release(lease));
    releaser.start();
    releaser.join();

    assertThat(WriterFence.current(name)).isEmpty();
    assertThat(HeldFences.holdsAny()).isFalse();
    assertThat(HeldFenceStack.held()).isEmpty();
  }

  static String domainOf(WriterFence fence) {
    return ((PgLeaseStore) FencedCalls.store(fence)).exclusionDomain().orElseThrow();
  }

  /** A hold as another copy of core pushes it: JDK types only, its lease an object of its own. */
  record Hold(
      String fenceName,
      String domainName,
      String holderLabel,
      long fencingToken,
      UUID holderToken,
      AtomicBoolean valid,
      Object lease,
      Instant acquiredAt)
      implements HeldFenceStack.Entry {
    static Hold of(String fenceName, String domainName, long fencingToken, UUID holderToken) {
      return new Hold(
          fenceName,
          domainName,
          "agent",
          fencingToken,
          holderToken,
          new AtomicBoolean(true),
          new Object(),
          Instant.now());
    }

    @Override
    public Object domain() {
      return domainName; // another copy's store: equal to none of this copy's
    }

    @Override
    public boolean isValid() {
      return valid.get();
    }

    @Override
    public String lostReason() {
      return null;
    }

    @Override
    public Instant expiresAt() {
      return acquiredAt.plus(TTL);
    }

    @Override
    public Duration ttl() {
      return TTL;
    }
  }
}
