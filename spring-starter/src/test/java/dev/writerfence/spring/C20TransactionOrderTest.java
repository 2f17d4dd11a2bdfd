package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spring.app.EventLog;
import dev.writerfence.spring.app.EventLog.Event;
import dev.writerfence.spring.app.Writers;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.OtherWriter;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Case C20: a {@code @Retry @Transactional @WriterFenced} method while another writer holds the
 * fence for 5 s. The fence sits between Resilience4j's @Retry and the transaction.
 */
class C20TransactionOrderTest extends FencedAppTestBase {
  @Autowired Writers writers;
  @Autowired EventLog log;
  @Autowired MeterRegistry meters;
  @Autowired RetryRegistry retryRegistry;
  @Autowired WriterFence fence;

  @Test
  void C20_transactionalFencedMethodWaitsOutAnotherWriterWithCleanAttemptsAndNoLeaseInBackoff()
      throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    String name = FenceNames.random("c20");
    log.watch(name);
    // The other writer: another process, as far as the fence can tell (its own DataSource).
    WriterFence other = WriterFence.builder(db.dataSource()).build();
    FenceLease held =
        OtherWriter.tryAcquire(
                other,
                FenceRequest.builder(name)
                    .holderLabel("other-writer")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .orElseThrow();
    CompletableFuture<Boolean> otherReleases =
        CompletableFuture.supplyAsync(
            () -> other.release(held), CompletableFuture.delayedExecutor(5, TimeUnit.SECONDS));
    // During @Retry's backoff: no lease held by this application, no transaction on the thread.
    retryRegistry
        .retry("c20")
        .getEventPublisher()
        .onRetry(
            e ->
                log.add(
                    "retry-wait",
                    name,
                    heldByThisApplication(name).isEmpty()
                        + "/"
                        + WriterFence.current(name).isPresent()
                        + "/"
                        + TransactionSynchronizationManager.isActualTransactionActive()));
    int serverLogMark = db.serverLogMark();
    long started = System.nanoTime();

    long token = writers.writeInTransaction(name, "payload");

    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(otherReleases.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(4_900));
    assertThat(token).isGreaterThan(held.fencingToken());

    // No aborted transaction (25P02), nor any other error, in the server's log.
    assertThat(db.serverProblemsSince(serverLogMark)).isEmpty();
    // The write happened once, stamped with the lease's token, and committed.
    assertThat(
            db.queryValue(
                Long.class,
                "SELECT count(*) FROM c20_record WHERE fence_name = ? AND fencing_token = ?",
                name,
                token))
        .isEqualTo(1L);

    List<Event> events = log.events();
    List<String> kinds = events.stream().map(Event::kind).toList();
    // Busy attempts happen with no transaction open: each attempt starts clean.
    assertThat(events.stream().filter(e -> e.kind().startsWith("busy")))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.inTransaction()).isFalse());
    // @Retry waited several times, never with a lease or a transaction.
    assertThat(events.stream().filter(e -> e.kind().equals("retry-wait")))
        .hasSizeGreaterThan(3)
        .allSatisfy(e -> assertThat(e.detail()).isEqualTo("true/false/false"));
    // Exactly one transaction, begun after the lease and while others saw it held; the lease
    // released after the commit.
    assertThat(kinds.stream().filter(k -> k.startsWith("tx-")))
        .containsExactly("tx-begin", "tx-commit");
    assertThat(kinds).containsSubsequence("acquired", "tx-begin", "tx-commit", "released");
    assertThat(kinds.indexOf("acquired")).isGreaterThan(kinds.lastIndexOf("busy"));
    Event begin = events.get(kinds.indexOf("tx-begin"));
    assertThat(begin.detail()).isEqualTo("held/c20-writer@" + HolderLabel.instance());
    assertThat(events.get(kinds.indexOf("acquired")).inTransaction()).isFalse();
    assertThat(events.get(kinds.indexOf("released")).inTransaction()).isFalse();
    assertThat(other.status(name).orElseThrow().state()).isEqualTo("free");
  }

  /** The leases this application's fence holds on {@code name}, by the held-leases gauge. */
  private java.util.Optional<Double> heldByThisApplication(String name) {
    var gauge = meters.find(MicrometerFenceListener.HELD).tag("fence", name).gauge();
    return gauge == null || gauge.value() == 0.0
        ? java.util.Optional.empty()
        : java.util.Optional.of(gauge.value());
  }

  @Test
  void busyRetryComesFromTheRetryRegistrysWriterFenceInstance() {
    BusyRetryPolicy policy = fence.defaultRetryPolicy();
    assertThat(policy.maxAttempts()).isEqualTo(2);
    assertThat(policy.initialInterval()).isEqualTo(Duration.ofMillis(50));
    assertThat(policy.jitter()).isZero();
  }
}
