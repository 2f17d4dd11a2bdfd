package dev.writerfence.aspectj;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.weaving.SuspendChecks;
import dev.writerfence.testing.weaving.SuspendContract;
import dev.writerfence.testing.weaving.SuspendingWriter;
import org.junit.jupiter.api.BeforeAll;

/**
 * Case C32 for Kotlin suspend functions woven at compile time: ajc wove the kotlinc-compiled writer
 * (the {@code kotlin-writers} directory of the build) into this module's test classes.
 */
class CompileTimeWovenSuspendTest extends SuspendContract {
  private static final String PACKAGE = "dev.writerfence.testing.weaving.kotlin.";
  private static SuspendChecks checks;

  @BeforeAll
  static void wovenByAjc() throws ReflectiveOperationException {
    // Compiled by kotlinc after javac: named, not linked.
    TestFence.assertWovenAtCompileTime(Class.forName(PACKAGE + "SuspendFencedWriter"));
    TestFence.install();
    SuspendingWriter driver =
        (SuspendingWriter) Class.forName(PACKAGE + "SuspendDriver").getConstructor().newInstance();
    checks = new SuspendChecks(driver, EmbeddedDatabase.get().dataSource());
  }

  @Override
  protected void verify(Check check) throws Exception {
    check.runOn(checks);
  }
}
