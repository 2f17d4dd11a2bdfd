package dev.writerfence.agent.fence;

import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.isAnnotatedWith;
import static net.bytebuddy.matcher.ElementMatchers.isBootstrapClassLoader;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentFeature;
import dev.writerfence.agent.AgentLog;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.agent.FailClosed;
import dev.writerfence.agent.Prefilter;
import dev.writerfence.bootstrap.FencingAgent;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.config.SettingsCatalog;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Fences methods of code that cannot be recompiled: those that {@code fence.methods} names, and
 * those carrying {@code @WriterFenced} that the AspectJ aspect did not weave. A legacy method gets
 * what an annotated one gets (try-semantics, busy retry, re-entrancy, release with the minted
 * token, fail closed) from core's {@link dev.writerfence.internal.weaving.FencedCall}, through
 * inlined advice.
 *
 * <p>On when {@code fence.methods} or {@code datasource.url} is set. Premain only parses and checks
 * the settings; the matchers are built with Byte Buddy when the first candidate class loads, and
 * the fence (JDBC, retry, logging) on the first fenced call.
 */
public final class FenceFeature implements AgentFeature {

  /** Never scanned for {@code @WriterFenced}: the JDK's packages and the agent's own. */
  private static final List<String> PLATFORM =
      List.of("java.", "javax.", "jdk.", "sun.", "com.sun.", "dev.writerfence.agent.");

  private FenceTargets targets;

  /** Creates the feature; {@link dev.writerfence.agent.AgentFeatures} lists it. */
  public FenceFeature() {}

  @Override
  public boolean enabled(AgentSettings settings) {
    boolean on =
        settings.get(SettingsCatalog.FENCE_METHODS.key()).isPresent()
            || settings.get(SettingsCatalog.DATASOURCE_URL.key()).isPresent();
    if (on) {
      check(settings);
    }
    return on;
  }

  /**
   * Configures the fence and passes the classes {@code fence.methods} names, and those whose class
   * file mentions {@code @WriterFenced} (outside the JDK, not from the bootstrap loader).
   */
  @Override
  public Prefilter prepare(AgentSettings settings, Instrumentation instrumentation) {
    List<MethodPattern> patterns = patterns(settings);
    FenceDispatch.configure(fenceSettings(settings));
    targets = new FenceTargets(patterns);
    reportNeverLoadedAtExit(targets);
    // Core's start-up weaving check leaves the unwoven annotated methods to this feature.
    FencingAgent.fencesAnnotatedMethods();
    AgentLog.info(
        "fencing "
            + (patterns.isEmpty()
                ? "no fence.methods entries"
                : patterns.size() + " fence.methods entries")
            + " and the @WriterFenced methods that AspectJ did not weave; the fence connects on the"
            + " first fenced call");
    return Prefilter.named(targets.configuredClasses())
        .or(Prefilter.mentioning(FenceTargets.ANNOTATION, PLATFORM));
  }

  /** A fenced method that ran without its advice would write without a lease: refuse its class. */
  @Override
  public boolean failsClosed() {
    return true;
  }

  @Override
  public AgentBuilder install(
      AgentBuilder builder, AgentSettings settings, Instrumentation instrumentation) {
    FenceTargets targets = this.targets;
    if (targets == null) {
      throw new IllegalStateException("install before prepare");
    }
    ElementMatcher.Junction<TypeDescription> platform = ElementMatchers.none();
    for (String prefix : PLATFORM) {
      platform = platform.or(nameStartsWith(prefix));
    }
    ElementMatcher.Junction<TypeDescription> annotated =
        isAnnotatedWith(named(FenceTargets.ANNOTATION))
            .or(declaresMethod(isAnnotatedWith(named(FenceTargets.ANNOTATION))));
    ElementMatcher.Junction<TypeDescription> types =
        targets.configuredClasses().isEmpty()
            ? not(platform).and(annotated)
            : namedOneOf(targets.configuredClasses().toArray(String[]::new))
                .or(not(platform).and(annotated));
    return builder
        .type(types, not(isBootstrapClassLoader()))
        .transform((b, type, loader, module, domain) -> instrument(b, type, targets));
  }

  private static DynamicType.Builder<?> instrument(
      DynamicType.Builder<?> builder, TypeDescription type, FenceTargets targets) {
    // From here a failure to instrument the class refuses it: its fenced methods must not run bare.
    FailClosed.instrumenting(type.getName());
    Map<MethodDescription, FenceSpec> fenced = targets.fencedMethods(type);
    ElementMatcher.Junction<MethodDescription> plain = ElementMatchers.none();
    ElementMatcher.Junction<MethodDescription> returning = ElementMatchers.none();
    ElementMatcher.Junction<MethodDescription> lazy = ElementMatchers.none();
    for (Map.Entry<MethodDescription, FenceSpec> e : fenced.entrySet()) {
      MethodDescription m = e.getKey();
      FenceDispatch.register(FenceTargets.key(type, m), e.getValue());
      if (e.getValue().lazy() != null) {
        lazy = lazy.or(ElementMatchers.is(m));
      } else if (m.getReturnType().isPrimitive()) { // void included
        plain = plain.or(ElementMatchers.is(m));
      } else {
        returning = returning.or(ElementMatchers.is(m));
      }
    }
    return builder
        .visit(Advice.to(FenceAdvice.Enter.class, FenceAdvice.PlainExit.class).on(plain))
        .visit(Advice.to(FenceAdvice.Enter.class, FenceAdvice.ReturningExit.class).on(returning))
        .visit(Advice.to(FenceAdvice.LazyEnter.class, FenceAdvice.ReturningExit.class).on(lazy));
  }

  /** Checks what premain can check without JDBC: the patterns, the data source, every value. */
  private static void check(AgentSettings settings) {
    patterns(settings);
    if (settings.get(SettingsCatalog.DATASOURCE_URL.key()).isEmpty()) {
      throw new AgentConfigurationException(
          "writer-fence agent: fence.methods is set but datasource.url is not: without a database"
              + " no lease can be confirmed; set datasource.url=jdbc:postgresql://HOST:PORT/DB");
    }
    try {
      WriterFenceSettings.fromProperties(fenceSettings(settings)).check();
    } catch (IllegalArgumentException e) {
      throw AgentConfigurationException.of(e);
    }
  }

  private static List<MethodPattern> patterns(AgentSettings settings) {
    Optional<String> methods = settings.get(SettingsCatalog.FENCE_METHODS);
    return methods.isEmpty()
        ? List.of()
        : MethodPattern.parseAll(methods.get(), settings.get(SettingsCatalog.FENCE_NAME));
  }

  /**
   * The settings, under the {@code writer-fence.} prefix, for core's parser: it reads the keys of
   * the fence and accepts the others of the catalog.
   */
  private static Properties fenceSettings(AgentSettings settings) {
    Properties p = new Properties();
    settings.asMap().forEach((k, v) -> p.setProperty(SettingsCatalog.PREFIX + k, v));
    return p;
  }

  /** Entries whose class was never loaded cannot be judged before the JVM ends: say so then. */
  private static void reportNeverLoadedAtExit(FenceTargets targets) {
    if (targets.configuredClasses().isEmpty()) {
      return;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (String entry : targets.entriesOfClassesNeverLoaded()) {
                    AgentLog.info(
                        "fence.methods entry '"
                            + entry
                            + "' fenced nothing: its class was never loaded in this JVM");
                  }
                },
                "writer-fence-agent-unmatched"));
  }
}
