package dev.writerfence.testing.weaving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The checks of case C32 for Kotlin {@code suspend} functions, for every weaving mode: the lease is
 * taken when the function is called and held until it resumes its caller, whether it completes,
 * fails or is cancelled; inside, after it resumed on another thread, {@code WriterFence.current}
 * gives it; a nested fenced call of the same name joins it. Judged in the lease rows.
 */
public final class SuspendChecks {
  private static final long WAIT_SECONDS = 60;

  private final SuspendingWriter writer;
  private final LeaseRows rows;

  /**
   * @param writer drives the mode's fenced Kotlin writer
   * @param dataSource the database of the mode's fence, its contract in the default schema
   */
  public SuspendChecks(SuspendingWriter writer, DataSource dataSource) {
    this.writer = writer;
    this.rows = new LeaseRows(dataSource, FenceSchema.DEFAULT_SCHEMA);
  }

  /**
   * The lease is held from the call until the function resumes its caller: while the work runs on
   * {@code Dispatchers.IO}, the row is held with the lease the work sees as current, and another
   * writer is busy; once the caller has the result, the row is free.
   *
   * @param name a fresh fence name
   */
  public void heldUntilItResumesItsCaller(String name) throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicReference<String> workThread = new AtomicReference<>();
    CompletableFuture<Long> result =
        writer.write(
            name,
            () -> {
              FenceLease lease = ReactiveChecks.leaseInside(name);
              workThread.set(Thread.currentThread().getName());
              started.countDown();
              assertThat(finish.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("let finish").isTrue();
              return lease.fencingToken();
            });
    try {
      assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the work started").isTrue();
      LeaseRows.Row held = rows.row(name).orElseThrow();
      assertThat(held.held()).as("the row while the work runs").isTrue();
      assertThat(rows.tryHoldAsAnotherWriter(name)).as("another writer, meanwhile").isEmpty();
      assertThat(workThread.get()).as("the work's thread").startsWith("DefaultDispatcher-worker");
      finish.countDown();
      long token = result.get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(token).as("the lease inside the work").isEqualTo(held.fencingToken());
      assertThat(rows.row(name).orElseThrow().held()).as("the row once resumed").isFalse();
      assertThat(rows.row(name).orElseThrow().grants()).as("acquisitions").isEqualTo(1);
      release(rows.tryHoldAsAnotherWriter(name).orElseThrow(), name);
    } finally {
      finish.countDown();
    }
  }

  /**
   * A function that fails after it resumed on another thread gives its caller the failure, and the
   * lease is free then.
   *
   * @param name a fresh fence name
   */
  public void releasedWhenItFails(String name) throws Exception {
    CompletableFuture<Long> result = writer.fail(name);
    ExecutionException failed = null;
    try {
      result.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      failed = e;
    }
    assertThat(failed).as("the caller's outcome").isNotNull();
    assertThat(failed.getCause())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("failed inside");
    LeaseRows.Row row = rows.row(name).orElseThrow();
    assertThat(row.held()).as("the row after the failure").isFalse();
    assertThat(row.grants()).as("acquisitions").isEqualTo(1);
  }

  /**
   * A function suspended until its coroutine is cancelled holds the lease until then; cancelling
   * releases it.
   *
   * @param name a fresh fence name
   */
  public void releasedWhenCancelled(String name) throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<Long> result = writer.hang(name, started::countDown);
    assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the function runs").isTrue();
    await()
        .atMost(Duration.ofSeconds(WAIT_SECONDS))
        .untilAsserted(
            () -> assertThat(rows.row(name).orElseThrow().held()).as("held, suspended").isTrue());
    assertThat(rows.tryHoldAsAnotherWriter(name)).as("another writer, meanwhile").isEmpty();
    result.cancel(true);
    assertThat(result).isCancelled();
    await()
        .atMost(Duration.ofSeconds(WAIT_SECONDS))
        .untilAsserted(
            () ->
                assertThat(rows.row(name).orElseThrow().held())
                    .as("the row after the cancel")
                    .isFalse());
    release(rows.tryHoldAsAnotherWriter(name).orElseThrow(), name);
  }

  /**
   * A fenced suspend call of the same name inside a fenced suspend function, on another thread,
   * joins its hold: one grant, the inner work sees the outer lease.
   *
   * @param name a fresh fence name
   */
  public void nestedCallJoinsTheHold(String name) throws Exception {
    long token =
        writer
            .nested(name, () -> WriterFence.current(name).orElseThrow().fencingToken())
            .get(WAIT_SECONDS, TimeUnit.SECONDS);
    LeaseRows.Row row = rows.row(name).orElseThrow();
    assertThat(row.grants()).as("acquisitions: the outer call only").isEqualTo(1);
    assertThat(token).as("the lease inside the inner call").isEqualTo(row.fencingToken());
    assertThat(row.held()).as("the row after both").isFalse();
  }

  private void release(UUID other, String name) {
    rows.release(name, other);
  }
}
