package dev.writerfence.agent;

import java.lang.instrument.Instrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * One thing the agent does (fence configured methods, audit storage writes). The agent asks each
 * settings against the settings catalog, so a key no mode reads is an error at start-up; then, in
 * premain, {@link #prepare} each enabled feature, which answers a {@link Prefilter}; and only when
 * the first class passing a prefilter loads (or at start, when a prefilter asks for it, and always
 * for {@code agentmain}) builds Byte Buddy and lets each enabled feature {@link #install} its
 * transformations into one shared {@link AgentBuilder}. Classes failing every prefilter never reach
 * Byte Buddy, and a JVM that loads none never loads Byte Buddy at all.
 */
public interface AgentFeature {
  /**
   * @param settings the agent's settings
   * @return {@code true} when the settings turn this feature on
   * @throws AgentConfigurationException when a setting of this feature is bad
   */
  boolean enabled(AgentSettings settings);

  /**
   * Sets up what must exist from the start (shutdown hooks, the bootstrap gate's settings) and says
   * which classes this feature might instrument. Runs in premain, before any Byte Buddy class is
   * loaded: JDK types only, no JDBC, no Resilience4j, no logging set-up. The default asks for Byte
   * Buddy at start ({@link Prefilter#atStart()}), which is always right and slow.
   *
   * @param settings the agent's settings
   * @param instrumentation the JVM's instrumentation
   * @return the classes {@link #install}'s matchers could match (it may pass more); not {@code
   *     null}
   * @throws AgentConfigurationException when a setting of this feature is bad
   */
  default Prefilter prepare(AgentSettings settings, Instrumentation instrumentation) {
    return Prefilter.atStart();
  }

  /**
   * Adds this feature's transformations, after {@link #prepare} on the same instance. Runs once,
   * when Byte Buddy is built: on the thread loading the first class that passed a prefilter, or in
   * premain. No JDBC, no Resilience4j, no logging set-up here; those wait for the first call that
   * needs them.
   *
   * @param builder the shared builder
   * @param settings the agent's settings
   * @param instrumentation the JVM's instrumentation
   * @return the builder with this feature's transformations added
   * @throws AgentConfigurationException when a setting of this feature is bad
   */
  AgentBuilder install(
      AgentBuilder builder, AgentSettings settings, Instrumentation instrumentation);

  /**
   * Whether a class this feature would instrument must be refused when it cannot be instrumented
   * (see {@link FailClosed}): {@code true} for a feature whose missing advice would let code run
   * without the protection it promises (the fence), {@code false} for one that only reports (the
   * audit), whose classes then load unchanged. The classes meant are those its {@link Prefilter}
   * {@link Prefilter#claims claims}, and those its transformation reports to {@link
   * FailClosed#instrumenting} before it fails.
   *
   * @return {@code false} unless overridden
   */
  default boolean failsClosed() {
    return false;
  }
}
