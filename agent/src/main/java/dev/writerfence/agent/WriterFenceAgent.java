package dev.writerfence.agent;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;

/**
 * The agent's entry points: {@code premain} for {@code -javaagent:writer-fence-agent.jar} at start,
 * {@code agentmain} for attach at run time.
 *
 * <p>Bad settings stop the JVM from starting (premain throws): a legacy writer must not run
 * unfenced because of a typo. A class that fails to instrument is reported once, in one line, and
 * skipped; the host keeps running.
 */
public final class WriterFenceAgent {
  private WriterFenceAgent() {}

  /**
   * Called by the JVM before {@code main}.
   *
   * @param agentArgs {@code null} or {@code config=FILE}
   * @param instrumentation the JVM's instrumentation
   * @throws AgentConfigurationException when a setting is unknown or bad
   */
  public static void premain(String agentArgs, Instrumentation instrumentation) {
    start(agentArgs, instrumentation);
  }

  /**
   * Called when the agent is attached to a running JVM. Classes loaded before are retransformed.
   *
   * @param agentArgs {@code null} or {@code config=FILE}
   * @param instrumentation the JVM's instrumentation
   * @throws AgentConfigurationException when a setting is unknown or bad
   */
  public static void agentmain(String agentArgs, Instrumentation instrumentation) {
    start(agentArgs, instrumentation);
  }

  private static void start(String agentArgs, Instrumentation instrumentation) {
    keepByteBuddyOffUnsafe();
    AgentSettings settings;
    List<AgentFeature> enabled = new ArrayList<>();
    try {
      settings = AgentSettings.load(agentArgs, System.getProperties());
      Set<String> known = new LinkedHashSet<>();
      for (AgentFeature feature : AgentFeatures.all()) {
        known.addAll(feature.keys());
      }
      settings.rejectUnknown(known);
      for (AgentFeature feature : AgentFeatures.all()) {
        if (feature.enabled(settings)) {
          enabled.add(feature);
        }
      }
    } catch (AgentConfigurationException e) {
      AgentLog.info(e.getMessage());
      throw e;
    }
    if (enabled.isEmpty()) {
      AgentLog.info("nothing to do (settings from " + settings.source() + ")");
      return;
    }
    try {
      BootstrapJar.append(instrumentation);
    } catch (Exception e) {
      throw new IllegalStateException(
          "writer-fence agent " + AgentLog.version() + ": cannot set up the held-fence state: " + e,
          e);
    }
    AgentBuilder builder = baseBuilder();
    for (AgentFeature feature : enabled) {
      builder = feature.install(builder, settings, instrumentation);
    }
    builder.installOn(instrumentation);
  }

  /**
   * Byte Buddy reaches for {@code sun.misc.Unsafe} when its class injector first loads, which Java
   * 24 and later answer with a warning on standard error; the agent inlines its advice and injects
   * no classes, so it needs no Unsafe. Byte Buddy's switch is the {@code net.bytebuddy.safe} system
   * property, renamed by relocation: this constant becomes the relocated name in the shaded jar, so
   * the switch reaches the agent's copy only, never the application's own Byte Buddy. A value the
   * user set is kept.
   */
  private static void keepByteBuddyOffUnsafe() {
    String property = ClassInjector.UsingUnsafe.SAFE_PROPERTY;
    if (System.getProperty(property) == null) {
      System.setProperty(property, "true");
    }
  }

  private static AgentBuilder baseBuilder() {
    return new AgentBuilder.Default()
        .disableClassFormatChanges()
        .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
        .with(AgentBuilder.TypeStrategy.Default.DECORATE)
        .with(new FailureListener())
        // Names only: the JVM hands every class it loads to this matcher, and a test of anything
        // else (isSynthetic, annotations, the hierarchy) makes Byte Buddy parse each class file,
        // which cost about a third of a millisecond of CPU per class loaded (StartupCost).
        .ignore(
            ElementMatchers.nameStartsWith("dev.writerfence.agent.")
                .or(ElementMatchers.nameStartsWith("net.bytebuddy.")));
  }

  /** Reports each class that fails to instrument once, in one line, and lets it load unchanged. */
  private static final class FailureListener extends AgentBuilder.Listener.Adapter {
    @Override
    public void onError(
        String typeName,
        ClassLoader classLoader,
        JavaModule module,
        boolean loaded,
        Throwable throwable) {
      // One line, whatever the message holds: hosts often parse their standard error by line.
      String cause = String.valueOf(throwable).replaceAll("\\s*\\R\\s*", " ");
      AgentLog.once(typeName, "could not instrument " + typeName + ", left unchanged: " + cause);
    }

    @Override
    public void onTransformation(
        TypeDescription typeDescription,
        ClassLoader classLoader,
        JavaModule module,
        boolean loaded,
        DynamicType dynamicType) {
      // Quiet on success: a line per class would flood the host's output.
    }
  }
}
