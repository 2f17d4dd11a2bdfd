package dev.writerfence.testing.weaving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FencingTokens;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.SectionReport;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The checks of case C32's expectations: lazy results held per subscription. Apart from {@link
 * Expectation}, so that only these need Reactor and RxJava on the class path.
 */
final class ReactiveChecks {
  private static final long WAIT_SECONDS = 60;

  private ReactiveChecks() {}

  /** The current lease of {@code name} on the thread running the work; fails when there is none. */
  static FenceLease leaseInside(String name) {
    return WriterFence.current(name)
        .orElseThrow(
            () ->
                new AssertionError(
                    "no lease inside the work on " + Thread.currentThread().getName()));
  }

  /**
   * A {@code Mono} (or a {@code Flux}) whose work runs on {@code boundedElastic} and takes until
   * the check lets it end: nothing is acquired before it is subscribed; inside the work the lease
   * is the current one; another writer trying meanwhile is busy; a blocking fenced writer started
   * meanwhile gets its turn only after the work, and the recorded sections do not overlap.
   */
  static void heldUntilTheWorkCompletes(WeavingSubject s, LeaseRows rows, String name, boolean flux)
      throws Exception {
    CriticalSections sections =
        new CriticalSections(s.newDataSource(), CriticalSections.freshTable("wc_c32")).create();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicReference<String> workThread = new AtomicReference<>();
    AtomicLong workToken = new AtomicLong();
    AtomicInteger bodies = new AtomicInteger();
    Callable<String> work =
        () -> {
          FenceLease lease = leaseInside(name);
          workThread.set(Thread.currentThread().getName());
          workToken.set(lease.fencingToken());
          try (CriticalSections.Recorder r = sections.recorder()) {
            long id = r.enter("reactive", lease.fencingToken());
            started.countDown();
            assertThat(finish.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("let finish").isTrue();
            r.exit(id);
          }
          return "written";
        };
    Mono<String> one = Mono.fromCallable(work).subscribeOn(Schedulers.boundedElastic());
    Publisher<String> returned =
        flux
            ? s.reactiveFenced()
                .writeFlux(
                    name,
                    () -> {
                      bodies.incrementAndGet();
                      return Flux.just("first").concatWith(one);
                    })
            : s.reactiveFenced()
                .writeMono(
                    name,
                    () -> {
                      bodies.incrementAndGet();
                      return one;
                    });
    assertThat(bodies).as("bodies run before any subscription").hasValue(0);
    assertThat(rows.row(name)).as("a lease row before any subscription").isEmpty();

    CompletableFuture<List<String>> result = Flux.from(returned).collectList().toFuture();
    assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the work started").isTrue();
    assertThat(WriterFence.current(name)).as("a hold on the subscribing thread after").isEmpty();
    LeaseRows.Row held = rows.row(name).orElseThrow();
    assertThat(held.held()).as("the row while the work runs").isTrue();
    assertThat(workToken.get()).as("the lease inside the work").isEqualTo(held.fencingToken());
    assertThat(workThread.get()).as("the work's thread").startsWith("boundedElastic");
    assertThat(rows.tryHoldAsAnotherWriter(name)).as("another writer, meanwhile").isEmpty();

    // A blocking writer of the same fence name, started while the work runs, waits for it.
    CompletableFuture<Void> second = new CompletableFuture<>();
    Thread blocking =
        new Thread(
            () -> {
              try (CriticalSections.Recorder r = sections.recorder()) {
                s.methodFenced()
                    .writePrioritized(
                        name,
                        () -> {
                          try {
                            r.section(
                                "blocking", WriterFence.current(name).orElseThrow().fencingToken());
                          } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                          }
                        });
                second.complete(null);
              } catch (Throwable t) {
                second.completeExceptionally(t);
              }
            },
            "weaving-contract-second-writer");
    blocking.setDaemon(true);
    blocking.start();
    assertThat(second).as("the second writer, while the work runs").isNotDone();
    finish.countDown();

    assertThat(result.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .containsExactlyElementsOf(flux ? List.of("first", "written") : List.of("written"));
    second.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(bodies).as("bodies run").hasValue(1);
    SectionReport report = sections.check();
    assertThat(report.violations()).as("violations of the record").isEmpty();
    assertThat(report.sections()).as("sections recorded").isEqualTo(2);
    LeaseRows.Row after = rows.row(name).orElseThrow();
    assertThat(after.grants()).as("acquisitions: the work's and the writer's").isEqualTo(2);
    assertThat(after.held()).isFalse();
  }

  /** A cancelled {@code Flux} releases its lease at once, and its body saw the lease. */
  static void cancelledFluxReleases(WeavingSubject s, LeaseRows rows, String name)
      throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<Optional<FenceLease>> inside = new AtomicReference<>();
    Flux<String> returned =
        s.reactiveFenced()
            .writeFlux(
                name,
                () ->
                    Flux.<String>defer(
                            () -> {
                              inside.set(WriterFence.current(name));
                              started.countDown();
                              return Flux.never();
                            })
                        .subscribeOn(Schedulers.boundedElastic()));
    Disposable subscription = returned.subscribe();
    assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the work started").isTrue();
    assertThat(inside.get()).as("the lease inside the work").isPresent();
    assertThat(rows.row(name).orElseThrow().held()).as("held while subscribed").isTrue();
    subscription.dispose();
    await()
        .atMost(Duration.ofSeconds(WAIT_SECONDS))
        .pollInterval(Duration.ofMillis(10))
        .untilAsserted(
            () ->
                assertThat(rows.row(name).orElseThrow().held()).as("held after cancel").isFalse());
    LeaseRows.Row row = rows.row(name).orElseThrow();
    assertThat(row.grants()).as("acquisitions").isEqualTo(1);
    assertThat(inside.get().orElseThrow().fencingToken()).isEqualTo(row.fencingToken());
    assertThat(inside.get().orElseThrow().isValid()).as("the lease after cancel").isFalse();
  }

  /**
   * A {@code Mono} (or a {@code Flux}) whose method opted in to {@code interruptOnLoss}, and whose
   * work never ends on its own: when another writer takes its lease over, the work is cancelled and
   * the subscriber gets the application's {@code FenceLostException} (the agent translates its
   * relocated one) naming the fence; the lease is lost, and the other writer's row is not freed.
   */
  static void cancelledOnLoss(WeavingSubject s, LeaseRows rows, String name, boolean flux)
      throws Exception {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<FenceLease> inside = new AtomicReference<>();
    Runnable body =
        () -> {
          inside.set(WriterFence.current(name).orElseThrow());
          seen.add("subscribed");
        };
    Publisher<String> returned =
        flux
            ? s.reactiveFenced()
                .writeFluxCancelledOnLoss(
                    name,
                    () -> {
                      body.run();
                      return Flux.<String>never()
                          .startWith("first")
                          .doOnCancel(() -> seen.add("cancelled"));
                    })
            : s.reactiveFenced()
                .writeMonoCancelledOnLoss(
                    name,
                    () -> {
                      body.run();
                      return Mono.<String>never().doOnCancel(() -> seen.add("cancelled"));
                    });
    CompletableFuture<Throwable> end = new CompletableFuture<>();
    Flux.from(returned).subscribe(v -> {}, end::complete, () -> end.complete(null));
    await("the work runs")
        .atMost(Duration.ofSeconds(WAIT_SECONDS))
        .until(() -> seen.contains("subscribed"));
    assertThat(rows.row(name).orElseThrow().held()).as("held while subscribed").isTrue();
    UUID other = rows.takeOver(name);
    try {
      Throwable thrown = end.get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(thrown).as("the subscription's end").isInstanceOf(FenceLostException.class);
      assertThat(((FenceLostException) thrown).fenceName()).isEqualTo(name);
      assertThat(thrown).hasMessageContaining(name);
      assertThat(seen).as("what the work saw").containsExactly("subscribed", "cancelled");
      assertThat(inside.get().isValid()).as("the lease after the loss").isFalse();
      assertThat(rows.row(name).orElseThrow().holderLabel())
          .as("the row's holder after the release")
          .isEqualTo("another-writer");
    } finally {
      rows.release(name, other);
    }
  }

  /** Each subscription takes a hold of its own, one after the other: two fencing tokens. */
  static void eachSubscriptionItsOwnHold(WeavingSubject s, LeaseRows rows, String name) {
    AtomicInteger bodies = new AtomicInteger();
    Mono<String> returned =
        s.reactiveFenced()
            .writeMono(
                name,
                () -> {
                  bodies.incrementAndGet();
                  return Mono.fromCallable(
                      () ->
                          "grant "
                              + FencingTokens.counter(
                                  WriterFence.current(name).orElseThrow().fencingToken()));
                });
    assertThat(returned.block(Duration.ofSeconds(WAIT_SECONDS))).isEqualTo("grant 1");
    assertThat(returned.block(Duration.ofSeconds(WAIT_SECONDS))).isEqualTo("grant 2");
    assertThat(bodies).as("bodies run").hasValue(2);
    LeaseRows.Row row = rows.row(name).orElseThrow();
    assertThat(row.grants()).as("acquisitions").isEqualTo(2);
    assertThat(row.held()).isFalse();
  }

  /** A result that is never subscribed acquires nothing and runs no body. */
  static void neverSubscribedAcquiresNothing(WeavingSubject s, LeaseRows rows, String name) {
    AtomicInteger bodies = new AtomicInteger();
    ReactiveFencedWriter w = s.reactiveFenced();
    List<Object> results = new ArrayList<>();
    results.add(w.writeMono(name, () -> Mono.fromCallable(() -> "" + bodies.incrementAndGet())));
    results.add(w.writeFlux(name, () -> Flux.just("" + bodies.incrementAndGet())));
    results.add(w.writeSingle(name, () -> Single.just("" + bodies.incrementAndGet())));
    results.add(w.writeFlowable(name, () -> Flowable.just("" + bodies.incrementAndGet())));
    assertThat(results).as("the results").doesNotContainNull();
    assertThat(bodies).as("bodies run").hasValue(0);
    assertThat(rows.row(name)).as("a lease row of results never subscribed").isEmpty();
  }

  /**
   * RxJava 3's {@code Single} and {@code Flowable} hold their lease while subscribed: inside, the
   * lease is current and another writer is busy; after, the row is free.
   */
  static void rxJavaHolds(WeavingSubject s, LeaseRows rows, String name) {
    ReactiveFencedWriter w = s.reactiveFenced();
    AtomicBoolean otherWasBusy = new AtomicBoolean();
    Callable<String> inside =
        () -> {
          long grant =
              FencingTokens.counter(WriterFence.current(name).orElseThrow().fencingToken());
          Optional<UUID> other = rows.tryHoldAsAnotherWriter(name);
          other.ifPresent(t -> rows.release(name, t));
          otherWasBusy.set(other.isEmpty());
          return "grant " + grant;
        };
    Single<String> single = w.writeSingle(name, () -> Single.fromCallable(inside));
    assertThat(rows.row(name)).as("a lease row before the Single is subscribed").isEmpty();
    assertThat(single.blockingGet()).isEqualTo("grant 1");
    assertThat(otherWasBusy).as("another writer inside the Single").isTrue();
    assertThat(rows.row(name).orElseThrow().held()).as("held after the Single").isFalse();

    otherWasBusy.set(false);
    Flowable<String> flowable = w.writeFlowable(name, () -> Flowable.fromCallable(inside));
    assertThat(flowable.toList().blockingGet()).containsExactly("grant 2");
    assertThat(otherWasBusy).as("another writer inside the Flowable").isTrue();
    LeaseRows.Row row = rows.row(name).orElseThrow();
    assertThat(row.grants()).as("acquisitions").isEqualTo(2);
    assertThat(row.held()).isFalse();
  }

  /**
   * Busy arrives as the result's error signal ({@code WriterFenceBusyException}, the application's
   * class), or, with {@code onBusy = SKIP}, as an empty result; the body never runs.
   */
  static void busyIsASignal(WeavingSubject s, LeaseRows rows, String name) {
    ReactiveFencedWriter w = s.reactiveFenced();
    AtomicInteger bodies = new AtomicInteger();
    UUID other = rows.holdAsAnotherWriter(name);
    try {
      Mono<String> once = w.writeMonoOnce(name, () -> Mono.just("ran " + bodies.incrementAndGet()));
      Throwable thrown = catchThrowable(() -> once.block(Duration.ofSeconds(WAIT_SECONDS)));
      assertThat(thrown).as("the Mono's error").isInstanceOf(WriterFenceBusyException.class);
      Flux<String> skipped =
          w.writeFluxOrSkip(name, () -> Flux.just("ran " + bodies.incrementAndGet()));
      assertThat(skipped.collectList().block(Duration.ofSeconds(WAIT_SECONDS)))
          .as("a skipped Flux")
          .isEmpty();
      assertThat(bodies).as("bodies run while busy").hasValue(0);
    } finally {
      rows.release(name, other);
    }
    assertThat(
            w.writeFluxOrSkip(name, () -> Flux.just("ran " + bodies.incrementAndGet()))
                .collectList()
                .block(Duration.ofSeconds(WAIT_SECONDS)))
        .containsExactly("ran 1");
    LeaseRows.Row row = rows.row(name).orElseThrow();
    assertThat(row.grants()).as("acquisitions: the other writer's and one").isEqualTo(2);
    assertThat(row.held()).isFalse();
  }

  /**
   * A fenced method returning a {@code Future} that is not a {@code CompletionStage} is refused,
   * naming the method and the type: at its first call ({@link IllegalArgumentException}), when the
   * container that would proxy it starts (Spring: the start-up fails with that exception as its
   * cause), or, by the agent, when its class loads ({@link NoClassDefFoundError}, the agent's line
   * on standard error naming them). It never runs and nothing is acquired.
   */
  static void refusedResultType(WeavingSubject s, LeaseRows rows, String name) {
    long before = rows.count();
    AtomicBoolean ran = new AtomicBoolean();
    Throwable thrown =
        catchThrowable(() -> s.refusedFenced().get().submit(name, () -> ran.set(true)));
    assertThat(thrown).as("the refusal").isNotNull();
    StringBuilder said = new StringBuilder();
    boolean refusedByName = false;
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      said.append(t.getMessage()).append('\n');
      refusedByName |= t instanceof IllegalArgumentException;
    }
    if (thrown instanceof NoClassDefFoundError) {
      assertThat(thrown.getMessage()).contains("refused by the writer-fence agent");
      said.append(StandardError.text());
      refusedByName = true;
    }
    assertThat(refusedByName).as("refused by its name (%s)", thrown).isTrue();
    assertThat(said.toString())
        .as("what the refusal said")
        // By name: the class literal would load the class, which the agent refuses.
        .contains(ReactiveChecks.class.getPackageName() + ".RefusedFencedWriter")
        .contains("submit")
        .contains("java.util.concurrent.Future");
    assertThat(ran).as("the method ran").isFalse();
    assertThat(rows.count()).as("fence names acquired").isEqualTo(before);
  }
}
