package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.fenced.unwoven.UnwovenWriter;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.retry.BusyRetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import kotlin.coroutines.Continuation;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Which methods a class gets fenced, decided from its description as the agent sees it. */
class FenceTargetsTest {

  /** Overrides the annotated type's method and adds one; carries no annotation of its own. */
  public static class Subclass extends UnwovenWriter {
    @Override
    public long write(String fenceName) {
      return super.write(fenceName);
    }

    public void other() {}
  }

  @Test
  void aSubclassOfAnAnnotatedTypeHasItsPublicMethodsFencedAsJavaAndSpringSeeIt() {
    assertThat(Subclass.class.isAnnotationPresent(dev.writerfence.annotation.WriterFenced.class))
        .as("@WriterFenced is @Inherited")
        .isTrue();
    var fenced =
        new FenceTargets(List.of()).fencedMethods(TypeDescription.ForLoadedType.of(Subclass.class));
    assertThat(fenced.keySet())
        .extracting(MethodDescription::getName)
        .containsExactlyInAnyOrder("write", "other");
  }

  /** A legacy class that {@code fence.methods} names with options. */
  public static class Legacy {
    public int count() {
      return 1;
    }

    public void walk() {}

    public Optional<String> find() {
      return Optional.empty();
    }
  }

  @Test
  void anEntrysOptionsReachTheRequestAndSkipOnAPrimitiveFailsClosedNamingTheType() {
    MethodPattern pattern =
        MethodPattern.parse(
            Legacy.class.getName()
                + "#*=corpus/nightly;priority=-5;on-busy=skip;retry.max-wait=2s"
                + ";interrupt-on-loss=true",
            Optional.empty());
    Map<MethodDescription, FenceSpec> fenced =
        new FenceTargets(List.of(pattern))
            .fencedMethods(TypeDescription.ForLoadedType.of(Legacy.class));
    FenceSpec walk = spec(fenced, "walk");
    FenceRequest request = walk.request(new Object[0], BusyRetryPolicy.defaults());
    assertThat(request.fenceName()).isEqualTo("corpus");
    assertThat(request.holderLabel()).hasValue("nightly@" + HolderLabel.instance());
    assertThat(request.priority()).hasValue(-5);
    assertThat(request.retryPolicy().orElseThrow().maxWait()).isEqualTo(Duration.ofSeconds(2));
    assertThat(request.interruptOnLoss()).isTrue();
    assertThat(walk.skipOnBusy()).isNotNull();
    assertThat(spec(fenced, "find").skipOnBusy()).isNotNull();

    // A skipped int method would have nothing to return: every call fails, the method never runs.
    FenceSpec count = spec(fenced, "count");
    assertThatThrownBy(() -> count.request(new Object[0], BusyRetryPolicy.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("onBusy = SKIP is not allowed on")
        .hasMessageContaining("Legacy#count")
        .hasMessageContaining("which returns int")
        .hasMessageContaining("fence.methods entry");
  }

  /** A legacy class with lazy and unheld results, named by {@code fence.methods}. */
  public static class LegacyReactive {
    public Mono<String> upload() {
      return Mono.just("uploaded");
    }

    public CompletableFuture<String> later() {
      return CompletableFuture.completedFuture("later");
    }

    /** What kotlinc makes of {@code suspend fun put(name: String): String}. */
    public Object put(String name, Continuation<? super String> completion) {
      return name;
    }
  }

  /** A legacy class whose method returns a bare {@code Future} subtype. */
  public static class LegacyFuture {
    public FutureTask<String> submit() {
      return new FutureTask<>(() -> "submitted");
    }
  }

  @Test
  void C32_aLazyResultIsHeldPerSubscriptionAndABareFutureRefusesItsClassNamingTheMethod() {
    Map<MethodDescription, FenceSpec> fenced =
        new FenceTargets(
                List.of(
                    MethodPattern.parse(
                        LegacyReactive.class.getName() + "#*=corpus", Optional.empty())))
            .fencedMethods(TypeDescription.ForLoadedType.of(LegacyReactive.class));
    assertThat(spec(fenced, "upload").lazy()).as("the Mono's hold").isNotNull();
    assertThat(spec(fenced, "later").lazy()).as("a stage's hold").isNull();
    assertThat(spec(fenced, "put").lazy().isSuspend())
        .as("a suspend function's hold, until it resumes its caller")
        .isTrue();

    // The class is refused while it is transformed (FailClosed), naming the method and the type.
    FenceTargets futures =
        new FenceTargets(
            List.of(
                MethodPattern.parse(LegacyFuture.class.getName() + "#*=corpus", Optional.empty())));
    assertThatThrownBy(
            () -> futures.fencedMethods(TypeDescription.ForLoadedType.of(LegacyFuture.class)))
        .isInstanceOf(FenceTargets.UnheldResultException.class)
        .hasMessageContaining("LegacyFuture#submit")
        .hasMessageContaining("which returns java.util.concurrent.FutureTask");
  }

  @Test
  void C32_interruptOnLossCancelsALazyResultOnLossAndInterruptsNoSubscribingThread() {
    Map<MethodDescription, FenceSpec> fenced =
        new FenceTargets(
                List.of(
                    MethodPattern.parse(
                        LegacyReactive.class.getName() + "#*=corpus;interrupt-on-loss=true",
                        Optional.empty())))
            .fencedMethods(TypeDescription.ForLoadedType.of(LegacyReactive.class));
    FenceSpec upload = spec(fenced, "upload");
    assertThat(upload.lazy()).as("the Mono's hold").asString().contains("cancelled on loss");
    assertThat(upload.request(new Object[0], BusyRetryPolicy.defaults()).interruptOnLoss())
        .as("the enter of a subscription asks for an interrupt")
        .isFalse();
    assertThat(spec(fenced, "later").request(new Object[0], BusyRetryPolicy.defaults()))
        .as("a stage's call still interrupts its thread")
        .extracting(FenceRequest::interruptOnLoss)
        .isEqualTo(true);
  }

  private static FenceSpec spec(Map<MethodDescription, FenceSpec> fenced, String method) {
    return fenced.entrySet().stream()
        .filter(e -> e.getKey().getName().equals(method))
        .findFirst()
        .orElseThrow(() -> new AssertionError("not fenced: " + method))
        .getValue();
  }

  @Test
  void aClassWithoutTheAnnotationAnywhereHasNothingFenced() {
    var fenced =
        new FenceTargets(List.of()).fencedMethods(TypeDescription.ForLoadedType.of(String.class));
    assertThat(fenced).isEmpty();
  }
}
