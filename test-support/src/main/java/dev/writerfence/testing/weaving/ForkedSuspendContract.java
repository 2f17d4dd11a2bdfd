package dev.writerfence.testing.weaving;

import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.nio.file.Path;
import java.util.List;

/**
 * Case C32 for Kotlin suspend functions in a mode that fences them in a JVM the test starts (a
 * {@code -javaagent}): each check runs {@link ForkedExpectation} in a new JVM, with the Kotlin
 * writer unwoven ({@code target/kotlin-writers}, where the module's test build compiled it) last on
 * its class path.
 */
public abstract class ForkedSuspendContract extends SuspendContract {
  /** For subclasses. */
  protected ForkedSuspendContract() {}

  /**
   * @return how the mode's forked JVM starts, as {@link ForkedWeavingContract} starts its own;
   *     never {@code null}
   */
  protected abstract ForkedMode mode();

  /**
   * How a forked JVM of the mode starts.
   *
   * @param jvmOptions the options that put the mode in place, before the class path
   * @param classPath the class path ({@link ForkedJvm#testClassPath()} with changes), without the
   *     Kotlin writer
   * @param jdbcUrl the PostgreSQL of the fences, its contract in {@code writer_fence}
   * @param user a role owning that schema
   */
  public record ForkedMode(
      List<String> jvmOptions, String classPath, String jdbcUrl, String user) {}

  @Override
  protected final void verify(Check check) throws Exception {
    ForkedMode m = mode();
    ForkedWeavingContract.fork(
        m.jvmOptions(),
        m.classPath() + File.pathSeparator + Path.of("target", "kotlin-writers").toAbsolutePath(),
        ForkedExpectation.SUSPEND + check.name(),
        m.jdbcUrl(),
        m.user());
  }
}
