package dev.writerfence.agent;

import dev.writerfence.agent.audit.AuditFeature;
import java.util.List;

/** The features the agent knows, in the order they are installed. */
final class AgentFeatures {
  private AgentFeatures() {}

  static List<AgentFeature> all() {
    return List.of(new AuditFeature());
  }
}
