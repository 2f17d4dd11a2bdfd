package dev.writerfence.testing.spring;

import dev.writerfence.WriterFence;
import dev.writerfence.testing.TestFence;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistrar;

/**
 * The test kit in a {@code @SpringBootTest} of an application that uses writer-fence's starter:
 * {@code @Import(TestFenceConfiguration.class)} on the test class. Its {@link TestFence} bean
 * (autowire it) makes the fence busy, lost or unavailable on demand; its fence is the application's
 * {@link WriterFence} bean, so the starter's advice runs every {@code @WriterFenced} method on it;
 * and the application's DataSource points at the same embedded PostgreSQL, the contract installed.
 *
 * <ul>
 *   <li><b>The fence.</b> The starter creates its own {@code WriterFence} only when the application
 *       has none ({@code @ConditionalOnMissingBean}); this bean is one, so the advice uses the test
 *       fence: fence names as the code says them under a prefix of this application context ({@link
 *       TestFence#inDatabase}), busy retried 3 times within about 150 ms, a loss found within 200
 *       ms. {@code writer-fence.retry.*}, {@code ttl} and {@code renew-interval} do not apply to
 *       it, nor do {@code FenceListener} beans (the starter's metrics).
 *   <li><b>The database.</b> {@code spring.datasource.url} and {@code spring.datasource.username}
 *       are set to the kit's embedded PostgreSQL (127.0.0.1, port 0, user {@code postgres}), above
 *       every other property source, so the application's own DataSource, its schema initializer
 *       and the health check run there; {@code writer-fence.datasource.url} and {@code .username}
 *       too when the application sets them. A {@code @ServiceConnection} of the application's own
 *       still wins for its DataSource; the test fence keeps the embedded database.
 *   <li><b>Its life.</b> One test fence per application context, which Spring's test framework
 *       caches and shares between the test classes that configure it alike: its prefix is per
 *       context, not per test, and {@link TestFence#lost()} lists the losses of every test that ran
 *       in it. Close each rival and outage in the test that opens it (try-with-resources). It is
 *       closed with the context. Tests that share a context must not run concurrently. Autowire it
 *       rather than adding {@code WriterFenceExtension}, whose {@code TestFence} parameter is
 *       another fence, one per test, for plain code.
 * </ul>
 *
 * <p>Works on Spring Framework 6.2 and 7 (Spring Boot 3.5 and 4.0): spring-context and spring-test
 * are the application's; the kit declares them optional.
 */
@Configuration(proxyBeanMethods = false)
public class TestFenceConfiguration {
  /** Spring's reading of a bean's destroy method: none, the fence is closed with its test fence. */
  private static final String NO_DESTROY_METHOD = "";

  /**
   * @return the test fence of this application context, on the JVM's embedded PostgreSQL; closed
   *     (rivals freed, outages ended, leases released) when the context closes
   */
  @Bean(destroyMethod = "close")
  public TestFence testFence() {
    return TestFence.start();
  }

  /**
   * @param testFence the context's test fence
   * @return its fence, which the starter's advice then uses in place of a fence of its own
   */
  @Bean(destroyMethod = NO_DESTROY_METHOD)
  public WriterFence writerFence(TestFence testFence) {
    return testFence.fence();
  }

  /**
   * @param testFence the context's test fence, whose database the application is pointed at
   * @param environment the application's properties, read for {@code writer-fence.datasource.url}
   * @return the registrar of the DataSource properties
   */
  @Bean
  public DynamicPropertyRegistrar writerFenceTestDatabase(
      TestFence testFence, Environment environment) {
    return registry -> {
      registry.add("spring.datasource.url", testFence::jdbcUrl);
      registry.add("spring.datasource.username", testFence::username);
      // A pool of the fence's own, when the application names one, is pointed there as well:
      // otherwise the schema initializer and the health check would reach for production.
      if (environment.containsProperty("writer-fence.datasource.url")) {
        registry.add("writer-fence.datasource.url", testFence::jdbcUrl);
        registry.add("writer-fence.datasource.username", testFence::username);
      }
    };
  }
}
