package dev.writerfence.agent;

import dev.writerfence.agent.audit.AuditFeature;
import dev.writerfence.agent.fence.FenceFeature;
import dev.writerfence.agent.propagation.PropagationFeature;
import java.util.List;

/** The features the agent knows, in the order they are installed. */
final class AgentFeatures {
  private AgentFeatures() {}

  static List<AgentFeature> all() {
    return List.of(new FenceFeature(), new AuditFeature(), new PropagationFeature());
  }
}
