package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.schema.FenceSchema;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The test kit as a user's test meets it: each promise of the extension and its test fence. */
@ExtendWith(WriterFenceExtension.class)
class WriterFenceExtensionTest {
  private final AtomicInteger writes = new AtomicInteger();

  /** The code under test: writes once under the fence named as in production. */
  private void upload(WriterFence fence) {
    fence.run(
        FenceRequest.of("corpus"),
        () -> {
          FenceAssert.assertFenced("corpus");
          writes.incrementAndGet();
        });
  }

  @Test
  void theFenceIsTheTestsOwnAndTheProcessFence(TestFence testFence, WriterFence fence) {
    assertThat(fence).isSameAs(testFence.fence());
    assertThat(ProcessFence.get()).isSameAs(fence);
    assertThat(testFence.prefix()).matches("t[0-9a-f]{8}:");
    assertThat(testFence.inDatabase("corpus")).isEqualTo(testFence.prefix() + "corpus");
  }

  @Test
  void productionNamesLiveUnderTheTestsPrefix(TestFence testFence) throws Exception {
    ContractCalls contract =
        new ContractCalls(EmbeddedDatabase.get().dataSource(), FenceSchema.DEFAULT_SCHEMA);
    UUID production = UUID.randomUUID();
    // A "production" holder of the unprefixed name, and another test's fence on the same name.
    Long productionToken = contract.acquire("corpus", production, "production", 60);
    try (TestFence otherTest = TestFence.start()) {
      FenceLease others = otherTest.fence().tryAcquire(FenceRequest.of("corpus")).orElseThrow();

      upload(testFence.fence());

      assertThat(writes).hasValue(1);
      assertThat(contract.state(testFence.inDatabase("corpus"))).isEqualTo("free");
      assertThat(testFence.fence().status("corpus").orElseThrow().fenceName()).isEqualTo("corpus");
      assertThat(otherTest.fence().release(others)).isTrue();
    } finally {
      if (productionToken != null) {
        assertThat(contract.release("corpus", production)).isTrue();
      }
    }
  }

  @Test
  void assertFencedFailsOutsideTheFenceNamingIt(TestFence testFence) {
    assertThatThrownBy(() -> FenceAssert.assertFenced("corpus"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("'corpus'")
        .hasMessageContaining("holds no lease");
    assertThatThrownBy(() -> testFence.assertFenced("corpus")).isInstanceOf(AssertionError.class);
    testFence
        .fence()
        .run(
            FenceRequest.of("corpus"),
            () -> assertThat(testFence.assertFenced("corpus")).isNotNull());
  }

  @Test
  void holdBusyMakesFencedCallsGiveUpWithoutRunning(TestFence testFence) {
    try (TestFence.Rival other = testFence.holdBusy("corpus")) {
      assertThatThrownBy(() -> upload(testFence.fence()))
          .isInstanceOf(WriterFenceBusyException.class);
      assertThat(testFence.fence().tryAcquire(FenceRequest.of("corpus"))).isEmpty();
      assertThat(other.fencingToken()).isPositive();
    }
    assertThat(writes).hasValue(0);

    upload(testFence.fence());
    assertThat(writes).hasValue(1);
  }

  @Test
  void takeOverLosesTheRunningCallsLease(TestFence testFence) {
    long[] tokens = new long[2];
    testFence
        .fence()
        .run(
            FenceRequest.of("corpus"),
            () -> {
              FenceLease lease = testFence.assertFenced("corpus");
              tokens[0] = lease.fencingToken();

              TestFence.Rival rival = testFence.takeOver("corpus");

              tokens[1] = rival.fencingToken();
              assertThat(lease.isValid()).isFalse();
              assertThatThrownBy(lease::checkValid).isInstanceOf(FenceLostException.class);
              assertThatThrownBy(() -> FenceAssert.assertFenced("corpus"))
                  .isInstanceOf(AssertionError.class);
              assertThat(testFence.lost()).containsExactly(lease);
            });
    assertThat(tokens[1]).isGreaterThan(tokens[0]);
    assertThat(testFence.fence().status("corpus").orElseThrow().holderLabel()).isEqualTo("rival");
  }

  /**
   * The lease lost inside the call is still the call's lease, so the assertion can say it was lost
   * and why, rather than that the thread holds no lease at all.
   */
  @Test
  void assertFencedAfterALossSaysTheLeaseWasLostAndWhy(TestFence testFence) {
    String[] reason = new String[1];
    testFence
        .fence()
        .run(
            FenceRequest.of("corpus"),
            () -> {
              FenceLease lease = FenceAssert.assertFenced("corpus");
              TestFence.Rival rival = testFence.takeOver("corpus");
              reason[0] = lease.lostReason().orElseThrow();

              assertThatThrownBy(() -> FenceAssert.assertFenced("corpus"))
                  .isInstanceOf(AssertionError.class)
                  .hasMessage(
                      "expected a valid lease on the fence 'corpus', but it was lost: "
                          + reason[0]);
              assertThatThrownBy(() -> testFence.assertFenced("corpus"))
                  .isInstanceOf(AssertionError.class)
                  .hasMessageContaining("but it was lost: " + reason[0]);
              rival.close();
            });
    assertThat(reason[0]).contains("expired or taken over");
    assertThatThrownBy(() -> FenceAssert.assertFenced("corpus"))
        .as("after the call")
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("holds no lease");
  }

  @Test
  void aReadOnlyDatabaseMakesTheFenceUnavailable(TestFence testFence) {
    TestFence.Outage outage = testFence.readOnly();
    try {
      assertThatThrownBy(() -> upload(testFence.fence()))
          .isInstanceOf(WriterFenceUnavailableException.class)
          .hasMessageContaining("25006");
    } finally {
      outage.close();
    }
    assertThat(writes).hasValue(0);

    upload(testFence.fence());
    assertThat(writes).hasValue(1);
  }

  @Test
  void anUnreachableDatabaseMakesTheFenceUnavailable(TestFence testFence) {
    TestFence.Outage outage = testFence.unreachable();
    try {
      assertThatThrownBy(() -> upload(testFence.fence()))
          .isInstanceOf(WriterFenceUnavailableException.class);
      // Rivals take their own path to the database: a test can still make the name busy.
      testFence.holdBusy("corpus").close();
    } finally {
      outage.close();
    }
    assertThat(writes).hasValue(0);

    upload(testFence.fence());
    assertThat(writes).hasValue(1);
  }
}
