package dev.writerfence.agent.fence;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.weaving.ForkedSuspendContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case C32 for Kotlin suspend functions through the agent: each check runs in a JVM started with
 * the real agent jar, which fences the kotlinc-compiled writer ({@code target/kotlin-writers}) by
 * its {@code @WriterFenced}.
 */
class AgentSuspendIT extends ForkedSuspendContract {
  @TempDir Path dir;

  @Override
  protected ForkedMode mode() {
    return new ForkedMode(
        AgentWeavingContractIT.agentOptions(dir),
        AgentWeavingContractIT.withoutOwnClasses(ForkedJvm.testClassPath()),
        EmbeddedDatabase.get().jdbcUrl(),
        "postgres");
  }
}
