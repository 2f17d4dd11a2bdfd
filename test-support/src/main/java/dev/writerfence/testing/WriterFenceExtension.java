package dev.writerfence.testing;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension (JUnit 5.10 and later, JUnit 6) that gives each test its own {@link
 * TestFence}: an embedded PostgreSQL with the contract installed (one server per test JVM), a
 * {@link WriterFence} whose fence names live under a random prefix of that test, and the means to
 * make it busy, lost or unavailable on demand. The code under test keeps its production fence
 * names; only the test's fence maps them.
 *
 * <pre>{@code
 * @ExtendWith(WriterFenceExtension.class)
 * class UploaderTest {
 *   @Test
 *   void givesUpWhenBusy(TestFence fence) {
 *     Uploader uploader = new Uploader(fence.fence());      // the code under test
 *     try (TestFence.Rival other = fence.holdBusy("corpus")) {
 *       assertThatThrownBy(uploader::upload).isInstanceOf(WriterFenceBusyException.class);
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Test methods and their {@code @BeforeEach} and {@code @AfterEach} methods may take a {@link
 * TestFence} or a {@link WriterFence} parameter (the same test's). For the test's duration the
 * fence is also the {@linkplain ProcessFence process fence}, so {@code @WriterFenced} methods woven
 * by AspectJ or the agent use it; it is cleared afterwards. That one is per JVM: tests that run
 * woven code must not run concurrently in one JVM.
 */
public final class WriterFenceExtension
    implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(WriterFenceExtension.class);

  @Override
  public void beforeEach(ExtensionContext context) {
    ProcessFence.set(testFence(context).fence());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    ProcessFence.set(null);
    TestFence fence = context.getStore(NAMESPACE).remove(TestFence.class, TestFence.class);
    if (fence != null) {
      fence.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == TestFence.class || type == WriterFence.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    TestFence fence = testFence(context);
    return parameter.getParameter().getType() == TestFence.class ? fence : fence.fence();
  }

  /**
   * The fence of the test that runs, made on first use. Only {@code get} and {@code put} of the
   * store, which JUnit 5.10 to 6 all have: {@code computeIfAbsent} exists only from JUnit 6 and
   * {@code getOrComputeIfAbsent} is deprecated there. A test's callbacks and parameters are
   * resolved on its one thread, so get-then-put makes one fence per test.
   */
  private static TestFence testFence(ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    TestFence fence = store.get(TestFence.class, TestFence.class);
    if (fence == null) {
      fence = TestFence.start();
      store.put(TestFence.class, fence);
    }
    return fence;
  }
}
