package dev.writerfence.aspectj;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.weaving.ForkedSuspendContract;

/**
 * Case C32 for Kotlin suspend functions woven at load time: each check runs in a JVM started with
 * {@code -javaagent:aspectjweaver.jar}, with the kotlinc-compiled writer unwoven ({@code
 * target/kotlin-writers}) on its class path.
 */
class LoadTimeWeavingSuspendTest extends ForkedSuspendContract {
  @Override
  protected ForkedMode mode() {
    return new ForkedMode(
        LoadTimeWeavingContractTest.weaverOptions(),
        LoadTimeWeavingContractTest.unwovenClassPath(ForkedJvm.testClassPath()),
        EmbeddedDatabase.get().jdbcUrl(),
        "postgres");
  }
}
