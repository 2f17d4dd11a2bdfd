package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentFeature;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.agent.Prefilter;
import java.lang.instrument.Instrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * Audits storage writes made while the calling thread holds no fence ({@code audit.mode=log}), or
 * refuses them ({@code audit.mode=enforce}). Keys: {@code audit.mode} (off, log, enforce; default
 * off), {@code audit.report} (the JSON report file, written at exit and through JMX), {@code
 * audit.require-fence} (the fence name every write must hold; default any) and {@code
 * audit.require-fence.<client id>} (per client), {@code audit.paths} (file writes).
 */
public final class AuditFeature implements AgentFeature {
  private List<ClientAudit> clients;

  @Override
  public boolean enabled(AgentSettings settings) {
    return AuditSettings.from(settings).mode() != AuditMode.OFF;
  }

  /**
   * Configures each client and the bootstrap gate's recorder (report at exit, JMX), and passes the
   * classes of the audited clients ({@link ClientAudit#prefilter}).
   */
  @Override
  public Prefilter prepare(AgentSettings settings, Instrumentation instrumentation) {
    AuditSettings audit = AuditSettings.from(settings);
    clients = ClientAudits.all();
    Prefilter prefilter = Prefilter.none();
    for (ClientAudit client : clients) {
      client.configure(settings);
      prefilter = prefilter.or(client.prefilter());
    }
    AuditSink.install(audit, clients);
    return prefilter;
  }

  @Override
  public AgentBuilder install(
      AgentBuilder builder, AgentSettings settings, Instrumentation instrumentation) {
    if (clients == null) {
      throw new IllegalStateException("install before prepare");
    }
    AgentBuilder result = builder;
    for (ClientAudit client : clients) {
      result = client.install(result);
    }
    return result;
  }
}
