package dev.writerfence.testing.weaving;

import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A writer whose fenced methods return lazy results (Reactor, RxJava 3), held per subscription: the
 * fence name is the first argument, and {@code body} runs inside the method, so at each
 * subscription. The weaving mode under test fences it; it needs Reactor and RxJava on the class
 * path.
 */
public class ReactiveFencedWriter {
  /** Creates the writer; a container may proxy it. */
  public ReactiveFencedWriter() {}

  /**
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER, retryMaxWaitMillis = 30_000)
  public Mono<String> writeMono(String fenceName, Supplier<Mono<String>> body) {
    return body.get();
  }

  /**
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER, retryMaxWaitMillis = 30_000)
  public Flux<String> writeFlux(String fenceName, Supplier<Flux<String>> body) {
    return body.get();
  }

  /**
   * One attempt: busy is the result's error signal.
   *
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER, retryMaxAttempts = 1)
  public Mono<String> writeMonoOnce(String fenceName, Supplier<Mono<String>> body) {
    return body.get();
  }

  /**
   * One attempt, and busy completes the result empty.
   *
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed; empty when busy
   */
  @WriterFenced(
      value = "{0}",
      holder = MethodFencedWriter.HOLDER,
      onBusy = OnBusy.SKIP,
      retryMaxAttempts = 1)
  public Flux<String> writeFluxOrSkip(String fenceName, Supplier<Flux<String>> body) {
    return body.get();
  }

  /**
   * Asks to be interrupted on loss: the subscription is cancelled when its lease is lost.
   *
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed, cancelled on loss
   */
  @WriterFenced(
      value = "{0}",
      holder = MethodFencedWriter.HOLDER,
      retryMaxWaitMillis = 30_000,
      interruptOnLoss = true)
  public Mono<String> writeMonoCancelledOnLoss(String fenceName, Supplier<Mono<String>> body) {
    return body.get();
  }

  /**
   * Asks to be interrupted on loss: the subscription is cancelled when its lease is lost.
   *
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed, cancelled on loss
   */
  @WriterFenced(
      value = "{0}",
      holder = MethodFencedWriter.HOLDER,
      retryMaxWaitMillis = 30_000,
      interruptOnLoss = true)
  public Flux<String> writeFluxCancelledOnLoss(String fenceName, Supplier<Flux<String>> body) {
    return body.get();
  }

  /**
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER, retryMaxWaitMillis = 30_000)
  public Single<String> writeSingle(String fenceName, Supplier<Single<String>> body) {
    return body.get();
  }

  /**
   * @param fenceName the fence name
   * @param body makes the work, at subscription
   * @return the work, held while it is subscribed
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER, retryMaxWaitMillis = 30_000)
  public Flowable<String> writeFlowable(String fenceName, Supplier<Flowable<String>> body) {
    return body.get();
  }
}
