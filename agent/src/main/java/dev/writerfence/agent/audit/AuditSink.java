package dev.writerfence.agent.audit;

import dev.writerfence.bootstrap.AuditGate;
import dev.writerfence.bootstrap.HandOvers;
import java.util.List;

/**
 * Installs the recorder into the bootstrap gate. Kept apart from {@link AuditFeature} so that no
 * bootstrap class is linked before premain has appended the bootstrap jar: the feature class is
 * loaded early, this one only when the audit is installed.
 */
final class AuditSink {
  private AuditSink() {}

  static void install(AuditSettings settings, List<ClientAudit> clients) {
    AuditRecorder recorder = new AuditRecorder(settings, clients);
    AuditGate.install(recorder);
    // Costs a stack walk per task handed to a JDK executor, only while the audit is on.
    HandOvers.recordSubmitters(recorder::submitter);
    new AuditControl(recorder, settings.report()).start();
  }
}
