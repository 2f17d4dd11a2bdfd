package dev.writerfence.testing.weaving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.schema.FenceSchema;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * One expectation every weaving mode meets, checked against a {@link WeavingSubject}. Each uses
 * fence names of its own and leaves every row it touched free. Runs on the calling thread, which
 * holds no fence before and after.
 */
public enum Expectation {
  /** Busy after the last attempt: {@code WriterFenceBusyException}, and the method never runs. */
  BUSY_MEANS_THE_METHOD_DOES_NOT_RUN {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      UUID other = rows.holdAsAnotherWriter(name);
      try {
        AtomicBoolean ran = new AtomicBoolean();
        Throwable thrown = catchThrowable(() -> s.methodFenced().write(name, () -> ran.set(true)));
        // The application's own class, which its catch clause names, in every mode.
        assertThat(thrown).as("the call's outcome").isInstanceOf(WriterFenceBusyException.class);
        assertThat(((WriterFenceBusyException) thrown).holderLabel()).contains("another-writer");
        assertThat(ran).as("the method ran").isFalse();
        assertThat(rows.row(name).orElseThrow().holderLabel()).isEqualTo("another-writer");
      } finally {
        rows.release(name, other);
      }
    }
  },

  /**
   * Busy with {@code onBusy = SKIP}: no exception, the method never runs, and the caller gets the
   * empty value of its return type ({@code null}, an empty {@code Optional}, a completed stage of
   * {@code null}); with the fence free the same methods run as usual.
   */
  BUSY_WITH_SKIP_MEANS_THE_METHOD_DOES_NOT_RUN_AND_RETURNS_EMPTY {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      MethodFencedWriter w = s.methodFenced();
      AtomicInteger ran = new AtomicInteger();
      UUID other = rows.holdAsAnotherWriter(name);
      try {
        AtomicReference<Object> skipped = new AtomicReference<>();
        Throwable thrown =
            catchThrowable(
                () -> {
                  w.writeOrSkip(name, ran::incrementAndGet);
                  skipped.set(w.readOrSkip(name, () -> "ran " + ran.incrementAndGet()));
                  assertThat(w.findOrSkip(name, () -> "ran " + ran.incrementAndGet())).isEmpty();
                  CompletionStage<String> stage =
                      w.writeAsyncOrSkip(
                          name, () -> CompletableFuture.completedFuture("ran " + ran.get()));
                  assertThat(stage.toCompletableFuture().get(60, TimeUnit.SECONDS)).isNull();
                });
        assertThat(thrown).as("what a skipped call threw").isNull();
        assertThat(skipped.get()).as("a skipped call's value").isNull();
        assertThat(ran).as("runs of the skipped methods").hasValue(0);
        assertThat(rows.row(name).orElseThrow().holderLabel()).isEqualTo("another-writer");
      } finally {
        rows.release(name, other);
      }
      assertThat(w.readOrSkip(name, () -> "ran")).isEqualTo("ran");
      assertThat(w.findOrSkip(name, () -> "found")).contains("found");
      assertThat(
              w.writeAsyncOrSkip(name, () -> CompletableFuture.completedFuture("started"))
                  .toCompletableFuture()
                  .get(60, TimeUnit.SECONDS))
          .isEqualTo("started");
      LeaseRows.Row row = rows.row(name).orElseThrow();
      assertThat(row.grants()).as("acquisitions: the other writer's and three").isEqualTo(4);
      assertThat(row.held()).isFalse();
    }
  },

  /**
   * The annotation's {@code priority} reaches the ticket: while another writer holds the fence, the
   * waiting call's ticket in {@code queue_status} carries it; once the holder releases, the call
   * runs and its ticket is gone.
   */
  PRIORITY_REACHES_THE_TICKET {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      UUID other = rows.holdAsAnotherWriter(name);
      AtomicBoolean ran = new AtomicBoolean();
      CompletableFuture<Void> call = new CompletableFuture<>();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  s.methodFenced().writePrioritized(name, () -> ran.set(true));
                  call.complete(null);
                } catch (Throwable t) {
                  call.completeExceptionally(t);
                }
              },
              "weaving-contract-waiter");
      waiter.setDaemon(true);
      waiter.start();
      try {
        List<LeaseRows.Ticket> queue = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (queue.isEmpty() && !call.isDone() && System.nanoTime() < deadline) {
          Thread.sleep(20);
          queue = rows.queue(name);
        }
        assertThat(queue)
            .as("tickets of '%s' while another writer holds it (the call: %s)", name, call)
            .singleElement()
            .satisfies(
                t -> {
                  assertThat(t.priority()).isEqualTo(MethodFencedWriter.PRIORITY);
                  // The annotation's holder, with the instance that waits.
                  assertThat(t.holderLabel()).isEqualTo(shownHolder());
                });
        assertThat(ran).as("the method ran while another writer held").isFalse();
      } finally {
        rows.release(name, other);
      }
      call.get(60, TimeUnit.SECONDS);
      assertThat(ran).as("the method ran after the release").isTrue();
      assertThat(rows.queue(name)).as("tickets left").isEmpty();
      LeaseRows.Row row = rows.row(name).orElseThrow();
      assertThat(row.grants()).as("acquisitions: the other writer's and the call's").isEqualTo(2);
      assertThat(row.held()).isFalse();
    }
  },

  /** A nested call of the same fence name runs inside the outer hold: one acquire in all. */
  NESTED_CALL_JOINS_THE_OUTER_HOLD {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      AtomicReference<Long> outer = new AtomicReference<>();
      AtomicReference<Long> inner = new AtomicReference<>();
      s.methodFenced()
          .write(
              name,
              () -> {
                outer.set(rows.row(name).orElseThrow().fencingToken());
                s.methodFenced()
                    .write(name, () -> inner.set(rows.row(name).orElseThrow().fencingToken()));
              });
      assertThat(inner.get()).as("the fencing token inside the nested call").isEqualTo(outer.get());
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /** A lease the thread took with {@code tryAcquire} is joined: the method acquires nothing. */
  TRY_ACQUIRE_HOLD_IS_JOINED {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      WriterFence fence = s.applicationFence();
      FenceLease lease =
          fence
              .tryAcquire(FenceRequest.builder(name).holderLabel("application").build())
              .orElseThrow();
      try {
        assertJoins(s, rows, name, lease);
      } finally {
        fence.release(lease);
      }
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /** A lease the thread took with {@code acquire} is joined: the method acquires nothing. */
  ACQUIRE_HOLD_IS_JOINED {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      WriterFence fence = s.applicationFence();
      FenceLease lease =
          fence.acquire(FenceRequest.builder(name).holderLabel("application").build());
      try {
        assertJoins(s, rows, name, lease);
      } finally {
        fence.release(lease);
      }
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /**
   * A fenced call of the application's own fence inside the method, on the same database and
   * schema, runs inside the method's hold: one acquire in all, the method's holder inside.
   */
  APPLICATION_CALL_INSIDE_THE_METHOD_JOINS_ITS_HOLD {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      AtomicReference<LeaseRows.Row> method = new AtomicReference<>();
      AtomicReference<LeaseRows.Row> inside = new AtomicReference<>();
      FenceRequest request = FenceRequest.builder(name).holderLabel("application").build();
      s.methodFenced()
          .write(
              name,
              () -> {
                method.set(rows.row(name).orElseThrow());
                s.applicationFence().run(request, () -> inside.set(rows.row(name).orElseThrow()));
              });
      assertThat(inside.get()).as("the application's call ran").isNotNull();
      assertThat(inside.get().fencingToken()).isEqualTo(method.get().fencingToken());
      assertThat(inside.get().holderLabel()).isEqualTo(shownHolder());
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /**
   * A hold taken through another {@code WriterFence} on its own DataSource object, reaching the
   * same database and schema, is joined: it holds the same lease row.
   */
  HOLD_ON_THE_SAME_DATABASE_AND_SCHEMA_IS_JOINED {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      try (WriterFence other = WriterFence.builder(s.newDataSource()).build()) {
        other.run(
            FenceRequest.builder(name).holderLabel("application").build(),
            () -> assertJoins(s, rows, name, other.currentLease(name).orElseThrow()));
      }
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /**
   * A hold of the same fence name in another schema is another fence: the method acquires its own
   * lease.
   */
  HOLD_IN_ANOTHER_SCHEMA_IS_NOT_JOINED {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      DataSource dataSource = s.newDataSource();
      try {
        FenceSchema.defaults().schema(OTHER_SCHEMA).install(dataSource);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot install schema " + OTHER_SCHEMA, e);
      }
      LeaseRows otherRows = new LeaseRows(dataSource, OTHER_SCHEMA);
      AtomicReference<LeaseRows.Row> inside = new AtomicReference<>();
      try (WriterFence other = WriterFence.builder(dataSource).schema(OTHER_SCHEMA).build()) {
        other.run(
            FenceRequest.builder(name).holderLabel("application").build(),
            () -> s.methodFenced().write(name, () -> inside.set(rows.row(name).orElse(null))));
      }
      assertThat(inside.get()).as("the method's own lease row, inside the method").isNotNull();
      assertThat(inside.get().held()).isTrue();
      assertThat(inside.get().holderLabel()).isEqualTo(shownHolder());
      assertFreeAfterOneAcquire(rows, name);
      assertFreeAfterOneAcquire(otherRows, name);
    }
  },

  /** A returned {@code CompletionStage} keeps its lease until it completes, then releases it. */
  COMPLETION_STAGE_KEEPS_ITS_LEASE {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      CompletableFuture<String> work = new CompletableFuture<>();
      CompletionStage<String> returned = s.methodFenced().writeAsync(name, () -> work);
      assertThat(WriterFence.current(name)).as("the hold on the calling thread, after").isEmpty();
      assertThat(rows.row(name).orElseThrow().held()).as("held while the stage runs").isTrue();
      work.complete("done");
      // The advice hands back a future that completes after the release.
      assertThat(returned.toCompletableFuture().get(60, TimeUnit.SECONDS)).isEqualTo("done");
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /**
   * A {@code null} name argument fails with {@link IllegalArgumentException} before any acquire.
   */
  NULL_NAME_FAILS_BEFORE_ANY_ACQUIRE {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      assertRefusedBeforeAcquire(s, rows, null);
    }
  },

  /** An invalid name (trailing white space) fails before any acquire, naming the rule. */
  INVALID_NAME_FAILS_BEFORE_ANY_ACQUIRE {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      assertRefusedBeforeAcquire(s, rows, name + " ");
    }
  },

  /** The annotation on a type fences its public methods, and no other. */
  TYPE_ANNOTATION_COVERS_PUBLIC_METHODS_ONLY {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      AtomicBoolean held = new AtomicBoolean();
      s.typeFenced().write(name, () -> held.set(rows.row(name).orElseThrow().held()));
      assertThat(held).as("public method held the fence").isTrue();
      assertFreeAfterOneAcquire(rows, name);

      String inPackage = name + "-package";
      AtomicBoolean ran = new AtomicBoolean();
      s.typeFenced()
          .writeInPackage(
              inPackage,
              () -> {
                ran.set(true);
                assertThat(WriterFence.current(inPackage)).isEmpty();
              });
      assertThat(ran).isTrue();
      assertThat(rows.row(inPackage)).as("a lease row for the package-private method").isEmpty();
    }
  },

  /**
   * {@code @WriterFenced} on an interface method is not honoured on the method implementing it:
   * that method runs unfenced, in every mode (the annotation counts where the running method or its
   * class declares it).
   */
  INTERFACE_METHOD_ANNOTATION_IS_NOT_HONOURED {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      AtomicBoolean ran = new AtomicBoolean();
      s.interfaceFenced()
          .write(
              name,
              () -> {
                ran.set(true);
                assertThat(WriterFence.current(name)).isEmpty();
              });
      assertThat(ran).isTrue();
      assertThat(rows.row(name)).as("a lease row for the interface-annotated method").isEmpty();
    }
  },

  /**
   * {@code WriterFence.current(name)} inside the method gives its lease, as the application's own
   * copy of core sees it.
   */
  CURRENT_GIVES_THE_LEASE_INSIDE_THE_METHOD {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      AtomicReference<Optional<FenceLease>> seen = new AtomicReference<>();
      AtomicReference<LeaseRows.Row> row = new AtomicReference<>();
      s.methodFenced()
          .write(
              name,
              () -> {
                seen.set(WriterFence.current(name));
                row.set(rows.row(name).orElseThrow());
              });
      FenceLease lease = seen.get().orElseThrow(() -> new AssertionError("no current lease"));
      assertThat(lease.fenceName()).isEqualTo(name);
      assertThat(lease.fencingToken()).isEqualTo(row.get().fencingToken());
      assertThat(lease.holderLabel()).isEqualTo(shownHolder());
      assertThat(lease.isValid()).as("valid after the method returned").isFalse();
      assertThat(WriterFence.current(name)).isEmpty();
      assertFreeAfterOneAcquire(rows, name);
    }
  },

  /**
   * {@code interruptOnLoss = true}: a method blocked in a sleep is interrupted when another writer
   * takes its lease over, and the call ends in the application's {@code FenceLostException} (the
   * agent translates its relocated one) with the method's exception as its cause; its thread is not
   * left interrupted, and the other writer's row is not freed. A callback the method registered
   * with {@code WriterFence.current(name).onLost} (the application's copy of core, whichever copy
   * took the lease) is told once.
   */
  LOSS_INTERRUPTS_A_METHOD_THAT_OPTED_IN {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      AtomicInteger told = new AtomicInteger();
      CountDownLatch runs = new CountDownLatch(1);
      AtomicBoolean interrupted = new AtomicBoolean();
      AtomicBoolean flagLeft = new AtomicBoolean();
      CompletableFuture<Throwable> call = new CompletableFuture<>();
      Thread caller =
          new Thread(
              () -> {
                call.complete(
                    catchThrowable(
                        () ->
                            s.methodFenced()
                                .writeInterruptedOnLoss(
                                    name,
                                    () -> {
                                      WriterFence.current(name)
                                          .orElseThrow()
                                          .onLost(lost -> told.incrementAndGet());
                                      runs.countDown();
                                      try {
                                        Thread.sleep(TimeUnit.SECONDS.toMillis(60));
                                      } catch (InterruptedException e) {
                                        interrupted.set(true);
                                        throw new IllegalStateException("interrupted", e);
                                      }
                                    })));
                flagLeft.set(Thread.currentThread().isInterrupted());
              },
              "weaving-contract-interrupted");
      caller.setDaemon(true);
      caller.start();
      assertThat(runs.await(30, TimeUnit.SECONDS)).as("the method runs").isTrue();
      UUID other = rows.takeOver(name);
      try {
        Throwable thrown = call.get(60, TimeUnit.SECONDS);
        caller.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(interrupted).as("the method was interrupted").isTrue();
        assertThat(thrown).as("the call's outcome").isNotNull();
        assertThat(thrown).isInstanceOf(FenceLostException.class);
        assertThat(thrown)
            .hasMessageContaining(name)
            .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(flagLeft).as("the thread left interrupted").isFalse();
        assertThat(rows.row(name).orElseThrow().holderLabel()).isEqualTo("another-writer");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (told.get() == 0 && System.nanoTime() < deadline) {
          Thread.sleep(20); // the callback runs after the interrupt, on the notice's thread
        }
        Thread.sleep(200);
        assertThat(told).as("onLost callbacks run").hasValue(1);
      } finally {
        rows.release(name, other);
      }
    }
  },

  /**
   * C32: a returned {@code Mono} keeps its lease for the whole of its work, which runs on {@code
   * boundedElastic}: nothing is acquired before it is subscribed, the lease is current inside the
   * work, another writer is busy meanwhile, and a blocking writer started meanwhile runs after it
   * (the recorded sections do not overlap).
   */
  C32_MONO_HOLDS_ITS_LEASE_UNTIL_ITS_WORK_COMPLETES {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      ReactiveChecks.heldUntilTheWorkCompletes(s, rows, name, false);
    }
  },

  /** C32: the same for a returned {@code Flux}. */
  C32_FLUX_HOLDS_ITS_LEASE_UNTIL_ITS_WORK_COMPLETES {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      ReactiveChecks.heldUntilTheWorkCompletes(s, rows, name, true);
    }
  },

  /** C32: a cancelled {@code Flux} releases its lease at once. */
  C32_CANCELLED_FLUX_RELEASES_AT_ONCE {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      ReactiveChecks.cancelledFluxReleases(s, rows, name);
    }
  },

  /**
   * C32: with {@code interruptOnLoss}, a returned {@code Mono} whose work never ends is cancelled
   * when another writer takes its lease over, and ends in {@code FenceLostException}.
   */
  C32_MONO_IS_CANCELLED_ON_LOSS {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      ReactiveChecks.cancelledOnLoss(s, rows, name, false);
    }
  },

  /** C32: the same for a returned {@code Flux}. */
  C32_FLUX_IS_CANCELLED_ON_LOSS {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) throws Exception {
      ReactiveChecks.cancelledOnLoss(s, rows, name, true);
    }
  },

  /** C32: each subscription of a lazy result takes its own hold: two fencing tokens. */
  C32_EACH_SUBSCRIPTION_TAKES_ITS_OWN_HOLD {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      ReactiveChecks.eachSubscriptionItsOwnHold(s, rows, name);
    }
  },

  /** C32: lazy results never subscribed acquire nothing (the row is untouched). */
  C32_NEVER_SUBSCRIBED_ACQUIRES_NOTHING {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      ReactiveChecks.neverSubscribedAcquiresNothing(s, rows, name);
    }
  },

  /** C32: RxJava 3's {@code Single} and {@code Flowable} hold their lease while subscribed. */
  C32_RXJAVA_SINGLE_AND_FLOWABLE_HOLD_THEIR_LEASE {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      ReactiveChecks.rxJavaHolds(s, rows, name);
    }
  },

  /** C32: busy is a lazy result's error signal, or an empty result with {@code onBusy = SKIP}. */
  C32_BUSY_IS_AN_ERROR_SIGNAL_OR_EMPTY_WITH_SKIP {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      ReactiveChecks.busyIsASignal(s, rows, name);
    }
  },

  /** C32: a result type no lease can be held for is refused, naming the method and the type. */
  C32_REFUSED_RESULT_TYPE_NAMES_THE_METHOD_AND_THE_TYPE {
    @Override
    void check(WeavingSubject s, LeaseRows rows, String name) {
      ReactiveChecks.refusedResultType(s, rows, name);
    }
  };

  /** The second schema {@link #HOLD_IN_ANOTHER_SCHEMA_IS_NOT_JOINED} installs. */
  public static final String OTHER_SCHEMA = "weaving_contract_other";

  /**
   * Checks this expectation.
   *
   * @param subject the weaving mode's writers and database; never {@code null}
   * @throws Exception when the expectation is not met ({@link AssertionError}) or cannot be checked
   */
  public void checkOn(WeavingSubject subject) throws Exception {
    LeaseRows rows = new LeaseRows(subject.newDataSource(), FenceSchema.DEFAULT_SCHEMA);
    String name = "wc-" + name().toLowerCase().replace('_', '-') + "-" + UUID.randomUUID();
    check(subject, rows, name);
    assertThat(WriterFence.current(name)).as("a hold left on the thread").isEmpty();
  }

  abstract void check(WeavingSubject subject, LeaseRows rows, String fenceName) throws Exception;

  /** The annotation's holder as rows show it: with the instance that runs the method. */
  private static String shownHolder() {
    return MethodFencedWriter.HOLDER + "@" + HolderLabel.instance();
  }

  private static void assertJoins(WeavingSubject s, LeaseRows rows, String name, FenceLease outer) {
    AtomicReference<LeaseRows.Row> inside = new AtomicReference<>();
    s.methodFenced().write(name, () -> inside.set(rows.row(name).orElseThrow()));
    assertThat(inside.get()).as("the method ran").isNotNull();
    assertThat(inside.get().fencingToken()).isEqualTo(outer.fencingToken());
    assertThat(inside.get().holderLabel())
        .as("holder of the row inside")
        .isEqualTo("application@" + HolderLabel.instance());
    assertThat(outer.isValid()).as("the outer lease, after the method").isTrue();
  }

  private static void assertFreeAfterOneAcquire(LeaseRows rows, String name) {
    LeaseRows.Row row = rows.row(name).orElseThrow(() -> new AssertionError("no row: " + name));
    assertThat(row.grants()).as("acquisitions of '%s'", name).isEqualTo(1);
    assertThat(row.held()).as("'%s' held after the call", name).isFalse();
  }

  private static void assertRefusedBeforeAcquire(WeavingSubject s, LeaseRows rows, String name) {
    long before = rows.count();
    AtomicBoolean ran = new AtomicBoolean();
    Throwable thrown = catchThrowable(() -> s.methodFenced().write(name, () -> ran.set(true)));
    assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
    assertThat(ran).as("the method ran").isFalse();
    assertThat(rows.count()).as("fence names acquired").isEqualTo(before);
  }
}
