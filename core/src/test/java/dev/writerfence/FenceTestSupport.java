package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.RecordingLeaseStore;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * What the core tests share: the embedded database with the default schema, a fresh random fence
 * name per test (case C06), and fences that give up quickly when busy.
 */
abstract class FenceTestSupport {
  static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  static final String SCHEMA = FenceSchema.DEFAULT_SCHEMA;
  static final Duration TTL = Duration.ofSeconds(30);

  /** Three attempts 20 ms apart: a busy outcome comes back in well under a second. */
  static final BusyRetryPolicy QUICK_RETRY =
      new BusyRetryPolicy(3, Duration.ofMillis(20), 1.0, Duration.ofMillis(20), 0.0);

  /** The contract called in SQL, as the owner. */
  final ContractCalls sql = new ContractCalls(DB.dataSource(), SCHEMA);

  /** This test's own fence name; no other test or run uses it. */
  String name;

  @BeforeEach
  void freshFenceName(TestInfo test) {
    name = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("test"));
  }

  /**
   * A lease a test takes on its own thread is a hold of that thread until released, which every
   * later fenced call of the same name and domain there would join: no test may leave one behind.
   */
  @AfterEach
  void noHoldLeftOnTheTestThread() {
    List<HeldFenceStack.Entry> left = HeldFenceStack.held();
    // Lost leases too (they stay on the stack until released), so that the next test starts clean.
    for (HeldFenceStack.Entry entry : HeldFenceStack.current()) {
      if (entry.lease() instanceof FenceLease lease) {
        HeldLease.of(lease).release();
      }
      HeldFenceStack.pop(entry.lease());
    }
    assertThat(left).as("holds left on the test thread").isEmpty();
  }

  static WriterFence.Builder fence(DataSource dataSource) {
    return WriterFence.builder(dataSource).retryPolicy(QUICK_RETRY).defaultTtl(TTL);
  }

  static WriterFence fence() {
    return fence(DB.dataSource()).build();
  }

  static WriterFence fence(LeaseStore store) {
    return WriterFence.builder(store).retryPolicy(QUICK_RETRY).defaultTtl(TTL).build();
  }

  static RecordingLeaseStore recordingStore() {
    return new RecordingLeaseStore(
        new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10)));
  }

  FenceRequest request(String holderLabel) {
    return FenceRequest.builder(name).holderLabel(holderLabel).build();
  }

  LeaseStatus status(WriterFence fence) {
    return fence.status(name).orElseThrow(() -> new AssertionError("no row for " + name));
  }

  /** Another holder takes this test's row over in SQL: the next renewal finds the lease lost. */
  void takeOver() {
    DB.execute(
        "UPDATE "
            + SCHEMA
            + ".lease SET holder_token = gen_random_uuid() WHERE fence_name = '"
            + name
            + "'");
  }

  /** Waits, by the database clock, until the fence's row is in {@code state}. */
  void awaitState(ContractCalls calls, String state) {
    await("state " + state + " of " + name)
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> state.equals(calls.state(name)));
  }
}
