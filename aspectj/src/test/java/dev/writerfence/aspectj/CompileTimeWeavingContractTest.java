package dev.writerfence.aspectj;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.weaving.InProcessWeavingContract;
import dev.writerfence.testing.weaving.InterfaceFencedWriter;
import dev.writerfence.testing.weaving.MethodFencedWriter;
import dev.writerfence.testing.weaving.ReactiveFencedWriter;
import dev.writerfence.testing.weaving.RefusedFencedWriter;
import dev.writerfence.testing.weaving.TypeFencedWriter;
import dev.writerfence.testing.weaving.WeavingSubject;
import org.junit.jupiter.api.BeforeAll;

/**
 * The weaving contract, woven at compile time: ajc wove the contract's writers into this module's
 * test classes (the {@code weaving-contract-writers} directory of the build).
 */
class CompileTimeWeavingContractTest extends InProcessWeavingContract {
  @BeforeAll
  static void wovenByAjc() {
    TestFence.assertWovenAtCompileTime(MethodFencedWriter.class);
    TestFence.assertWovenAtCompileTime(TypeFencedWriter.class);
  }

  @Override
  protected WeavingSubject subject() {
    return new WeavingSubject(
        EmbeddedDatabase.get().jdbcUrl(),
        "postgres",
        TestFence.install(),
        new MethodFencedWriter(),
        new TypeFencedWriter(),
        new InterfaceFencedWriter(),
        new ReactiveFencedWriter(),
        () -> new RefusedFencedWriter());
  }
}
