package dev.writerfence.agent;

import java.lang.instrument.Instrumentation;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * One thing the agent does (fence configured methods, audit storage writes). The agent asks each
 * feature for the setting keys it reads, so an unknown key is an error at start-up, then lets each
 * enabled feature add its transformations to one shared {@link AgentBuilder}.
 */
public interface AgentFeature {
  /**
   * @return the setting keys this feature reads, without the {@code writer-fence.} prefix (for
   *     example {@code audit.mode}); a key ending in {@code .*} accepts every key under that prefix
   */
  Set<String> keys();

  /**
   * @param settings the agent's settings
   * @return {@code true} when the settings turn this feature on
   * @throws AgentConfigurationException when a setting of this feature is bad
   */
  boolean enabled(AgentSettings settings);

  /**
   * Adds this feature's transformations. Runs in premain: no JDBC, no Resilience4j, no logging
   * set-up here; those wait for the first call that needs them.
   *
   * @param builder the shared builder
   * @param settings the agent's settings
   * @param instrumentation the JVM's instrumentation
   * @return the builder with this feature's transformations added
   * @throws AgentConfigurationException when a setting of this feature is bad
   */
  AgentBuilder install(
      AgentBuilder builder, AgentSettings settings, Instrumentation instrumentation);
}
