package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentFeature;
import dev.writerfence.agent.AgentSettings;
import java.lang.instrument.Instrumentation;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Audits storage writes made while the calling thread holds no fence ({@code audit.mode=log}), or
 * refuses them ({@code audit.mode=enforce}). Keys: {@code audit.mode} (off, log, enforce; default
 * off), {@code audit.report} (the JSON report file, written at exit and through JMX), {@code
 * audit.require-fence} (the fence name every write must hold; default any) and {@code
 * audit.require-fence.<client id>} (per client), {@code audit.paths} (file writes).
 */
public final class AuditFeature implements AgentFeature {
  @Override
  public Set<String> keys() {
    return AuditSettings.KEYS;
  }

  @Override
  public boolean enabled(AgentSettings settings) {
    return AuditSettings.from(settings).mode() != AuditMode.OFF;
  }

  @Override
  public AgentBuilder install(
      AgentBuilder builder, AgentSettings settings, Instrumentation instrumentation) {
    AuditSettings audit = AuditSettings.from(settings);
    AgentBuilder result = builder;
    for (ClientAudit client : ClientAudits.all()) {
      client.configure(settings);
      result = client.install(result);
    }
    AuditSink.install(audit, ClientAudits.all());
    return result;
  }
}
