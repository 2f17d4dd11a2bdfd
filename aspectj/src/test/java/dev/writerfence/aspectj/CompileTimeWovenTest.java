package dev.writerfence.aspectj;

import dev.writerfence.WriterFence;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the tests of the fixtures woven at compile time share: the test fence installed as the
 * process default (the one the aspect uses), a fresh {@link CorpusWriter} per test, and a second
 * fence on the same database to contend with, as another process's writer would.
 */
abstract class CompileTimeWovenTest {
  /** Acquires and releases on its own; {@link TestFence#EVENTS} does not count them. */
  final WriterFence otherWriter = TestFence.otherWriter();

  final CorpusWriter writer = new CorpusWriter();

  @BeforeAll
  static void installFenceAndCheckWeaving() {
    TestFence.install();
    TestFence.assertWovenAtCompileTime(CorpusWriter.class);
  }
}
