package dev.writerfence.aspectj;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.weaving.ForkedSuspendContract;
import java.io.File;
import java.nio.file.Path;

/**
 * Case C32 for Kotlin suspend functions woven at load time: each check runs in a JVM started with
 * {@code -javaagent:aspectjweaver.jar}, with the kotlinc-compiled writer unwoven ({@code
 * target/kotlin-writers}) on its class path.
 */
class LoadTimeWeavingSuspendTest extends ForkedSuspendContract {
  @Override
  protected ForkedMode mode() {
    String classPath =
        LoadTimeWeavingContractTest.unwovenClassPath(ForkedJvm.testClassPath())
            + File.pathSeparator
            + Path.of("target", "kotlin-writers").toAbsolutePath();
    return new ForkedMode(
        LoadTimeWeavingContractTest.weaverOptions(),
        classPath,
        EmbeddedDatabase.get().jdbcUrl(),
        "postgres");
  }
}
