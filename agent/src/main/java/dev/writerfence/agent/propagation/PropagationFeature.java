package dev.writerfence.agent.propagation;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.writerfence.agent.AgentFeature;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditFeature;
import dev.writerfence.agent.fence.FenceFeature;
import dev.writerfence.internal.config.SettingsCatalog;
import java.lang.instrument.Instrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Carries a thread's holds to the work it hands to other threads, as the OpenTelemetry Java agent
 * carries its context: captured where a task is created or handed off, restored where it runs,
 * through {@link dev.writerfence.bootstrap.CarriedHolds}, the one carrier. The hand-offs are the
 * JDK's own, so every executor built on them is covered:
 *
 * <ul>
 *   <li>{@code FutureTask} and {@code ForkJoinTask} capture when constructed (what {@code submit},
 *       {@code invokeAll}, {@code invokeAny}, {@code schedule*}, {@code ForkJoinPool}'s
 *       submissions, {@code fork}, parallel streams and {@code CompletableFuture}'s async stages
 *       create) and restore in {@code run}, {@code runAndReset}, {@code doExec} and the async
 *       stages' {@code run};
 *   <li>{@code ThreadPoolExecutor.execute} wraps a task it cannot follow by its object (a lambda);
 *   <li>{@code Thread.start} captures for the thread, platform or virtual, and {@code Thread.run}
 *       (a virtual thread's {@code run(Runnable)}) restores; a pool's worker thread ({@code
 *       ThreadPoolExecutor.addWorker}, a {@code ForkJoinWorkerThread}) never carries, only its
 *       tasks do.
 * </ul>
 *
 * <p>A thread that holds nothing pays one thread-local read per hand-off. A carried hold counts
 * only while the parent's lease is valid. On with the fence or the audit unless {@code
 * agent.propagation=false}. The JDK's classes are loaded before premain, so only a retransformation
 * reaches them (ADR 44): with the others when Byte Buddy is built at start anyway ({@code
 * audit.paths}, attach), otherwise when the JVM records its first hold, before which there is
 * nothing to carry; then only these classes are retransformed.
 */
public final class PropagationFeature implements AgentFeature {
  private static final String CONCURRENT = "java.util.concurrent.";

  private static final java.util.List<String> TARGETS =
      java.util.List.of(
          "java.lang.Thread",
          "java.lang.VirtualThread",
          CONCURRENT + "FutureTask",
          CONCURRENT + "ForkJoinTask",
          CONCURRENT + "ThreadPoolExecutor",
          CONCURRENT + "CompletableFuture$AsyncSupply",
          CONCURRENT + "CompletableFuture$AsyncRun",
          CONCURRENT + "CompletableFuture$Completion");

  /** Creates the feature; {@code AgentFeatures} lists it. */
  public PropagationFeature() {}

  @Override
  public boolean enabled(AgentSettings settings) {
    boolean on = settings.get(SettingsCatalog.AGENT_PROPAGATION).orElse(Boolean.TRUE);
    return on && (new FenceFeature().enabled(settings) || new AuditFeature().enabled(settings));
  }

  /**
   * Loads the JDK classes it instruments (those that exist on this JDK), so that all are among the
   * classes retransformed at start. One loaded later, while Byte Buddy transforms another class on
   * the same thread, would be left as it is (Byte Buddy does not transform inside a
   * transformation), and a pool's worker would then carry its starter's holds.
   */
  @Override
  public Prefilter prepare(AgentSettings settings, Instrumentation instrumentation) {
    loadedTargets();
    return Prefilter.atStart();
  }

  /**
   * Loads the JDK classes this feature instruments, those that exist on this JDK.
   *
   * @return them: the only classes to retransform when the feature is installed after start
   */
  public static Class<?>[] loadedTargets() {
    java.util.List<Class<?>> loaded = new java.util.ArrayList<>();
    for (String name : TARGETS) {
      try {
        loaded.add(Class.forName(name, false, null));
      } catch (ClassNotFoundException e) {
        // not on this JDK (VirtualThread before Java 21): nothing to instrument
      }
    }
    return loaded.toArray(new Class<?>[0]);
  }

  @Override
  public AgentBuilder install(
      AgentBuilder builder, AgentSettings settings, Instrumentation instrumentation) {
    ElementMatcher.Junction<MethodDescription> noArguments = takesArguments(0);
    return builder
        .type(namedOneOf(CONCURRENT + "FutureTask", CONCURRENT + "ForkJoinTask"))
        .transform(advice(isConstructor(), TaskCreatedAdvice.class))
        .transform(
            advice(
                namedOneOf("run", "runAndReset", "doExec").and(noArguments), TaskRunAdvice.class))
        .type(
            namedOneOf(
                CONCURRENT + "CompletableFuture$AsyncSupply",
                CONCURRENT + "CompletableFuture$AsyncRun",
                CONCURRENT + "CompletableFuture$Completion"))
        .transform(advice(named("run").and(noArguments), TaskRunAdvice.class))
        .type(named(CONCURRENT + "ThreadPoolExecutor"))
        .transform(
            advice(
                named("execute").and(takesArguments(1)).and(takesArgument(0, Runnable.class)),
                ExecuteAdvice.class))
        .transform(advice(named("addWorker"), WorkerStartAdvice.class))
        .type(namedOneOf("java.lang.Thread", "java.lang.VirtualThread"))
        .transform(advice(named("start").and(not(isStatic())), ThreadStartAdvice.class))
        .type(named("java.lang.Thread"))
        .transform(advice(named("run").and(noArguments), TaskRunAdvice.class))
        .type(named("java.lang.VirtualThread"))
        .transform(
            advice(
                named("run").and(takesArguments(1)).and(takesArgument(0, Runnable.class)),
                TaskRunAdvice.class));
  }

  private static AgentBuilder.Transformer advice(
      ElementMatcher<? super MethodDescription> methods, Class<?> adviceClass) {
    return new AgentBuilder.Transformer.ForAdvice()
        .include(PropagationFeature.class.getClassLoader())
        .advice(methods, adviceClass.getName());
  }
}
