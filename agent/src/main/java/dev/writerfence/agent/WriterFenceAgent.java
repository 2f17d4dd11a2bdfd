package dev.writerfence.agent;

import dev.writerfence.agent.propagation.PropagationFeature;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.dynamic.loading.ClassInjector;

/**
 * The agent's entry points: {@code premain} for {@code -javaagent:writer-fence-agent.jar} at start,
 * {@code agentmain} for attach at run time.
 *
 * <p>Bad settings stop the JVM from starting (premain throws): a legacy writer must not run
 * unfenced because of a typo. Premain loads no Byte Buddy class: it registers a {@link
 * DeferredTransformer} that builds Byte Buddy when the first class passing a feature's {@link
 * Prefilter} loads, unless a feature needs it at start (see {@link AgentFeature}). A class that
 * fails to instrument is reported once, in one line: refused when the fence would instrument it
 * (its fenced methods must not run unfenced), loaded unchanged otherwise ({@link FailClosed}).
 */
public final class WriterFenceAgent {
  private WriterFenceAgent() {}

  /**
   * Called by the JVM before {@code main}. When a setting is unknown or bad, the JVM exits with
   * status 1 after one line on standard error naming the setting: {@code main} never runs.
   *
   * @param agentArgs {@code null} or {@code config=FILE}
   * @param instrumentation the JVM's instrumentation
   */
  public static void premain(String agentArgs, Instrumentation instrumentation) {
    start(agentArgs, instrumentation, false);
  }

  /**
   * Called when the agent is attached to a running JVM. Classes loaded before are retransformed.
   *
   * @param agentArgs {@code null} or {@code config=FILE}
   * @param instrumentation the JVM's instrumentation
   * @throws AgentConfigurationException when a setting is unknown or bad
   */
  public static void agentmain(String agentArgs, Instrumentation instrumentation) {
    start(agentArgs, instrumentation, true);
  }

  /**
   * Bad settings: at start the JVM exits with status 1 after one line naming the problem (an
   * exception out of premain would abort it with a native stack dump, exit code 134); attached to a
   * running JVM, the attach fails and the host keeps running.
   */
  private static AgentConfigurationException refuse(
      AgentConfigurationException e, boolean attached) {
    String message = e.getMessage().replaceFirst("^writer-fence agent: ", "");
    if (attached) {
      AgentLog.info(message + "; not attached");
      return e;
    }
    AgentLog.info(message + "; the JVM does not start");
    System.exit(1);
    return e; // not reached
  }

  /**
   * Set by the first copy of the agent that starts in a JVM: a second {@code -javaagent} of it
   * would judge every write twice and fence every method twice. Not a {@code writer-fence.*}
   * setting, so the settings check never sees it.
   */
  static final String ACTIVE = "writer-fence-agent.active";

  private static void start(String agentArgs, Instrumentation instrumentation, boolean attached) {
    synchronized (System.class) {
      String active = System.getProperty(ACTIVE);
      if (active != null) {
        AgentLog.info(
            "already attached to this JVM ("
                + active
                + "); this copy does nothing: give one -javaagent all the settings");
        return;
      }
      System.setProperty(ACTIVE, AgentLog.version() + (agentArgs == null ? "" : " " + agentArgs));
    }
    keepByteBuddyOffUnsafe();
    AgentSettings settings;
    List<AgentFeature> enabled = new ArrayList<>();
    try {
      settings = AgentSettings.load(agentArgs, System.getProperties());
      settings.rejectUnknown();
      for (AgentFeature feature : AgentFeatures.all()) {
        if (feature.enabled(settings)) {
          enabled.add(feature);
        }
      }
    } catch (AgentConfigurationException e) {
      throw refuse(e, attached);
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
    Prefilter prefilter = Prefilter.none();
    Prefilter failClosed = Prefilter.none();
    Prefilter untilFirstHold = Prefilter.none();
    AgentFeature propagation = null;
    try {
      for (AgentFeature feature : enabled) {
        Prefilter p = feature.prepare(settings, instrumentation);
        if (feature instanceof PropagationFeature) {
          propagation = feature;
          untilFirstHold = p;
          continue;
        }
        prefilter = prefilter.or(p);
        if (feature.failsClosed()) {
          failClosed = failClosed.or(p);
        }
      }
    } catch (AgentConfigurationException e) {
      throw refuse(e, attached);
    }
    if (propagation != null) {
      if (attached || prefilter.needsByteBuddyAtStart()) {
        // Byte Buddy is built at start anyway: the JDK's executors are retransformed with the rest.
        prefilter = prefilter.or(untilFirstHold);
      } else {
        // Nothing can be carried before something is held: the JDK's executors are instrumented
        // when the first hold of this JVM is recorded, not at start (ADR 44's cost, deferred).
        enabled.remove(propagation);
        AgentFeature carrier = propagation;
        HeldFenceStack.beforeFirstHold(
            () -> AgentTransformations.installAtFirstHold(carrier, settings, instrumentation));
      }
    }
    if (attached || prefilter.needsByteBuddyAtStart()) {
      // Classes loaded before (all of them after attach; the JDK's own for the file audit) are
      // only reached by retransforming them now, which needs Byte Buddy at start.
      AgentTransformations.installNow(enabled, failClosed, settings, instrumentation);
    } else if (!prefilter.isEmpty()) {
      instrumentation.addTransformer(
          new DeferredTransformer(
              prefilter,
              failClosed,
              () -> AgentTransformations.makeRaw(enabled, settings, instrumentation)),
          true);
    }
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
}
