package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.weaving.SuspendChecks;
import dev.writerfence.testing.weaving.SuspendContract;
import dev.writerfence.testing.weaving.SuspendingWriter;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Case C32 for Kotlin suspend functions through the starter's Spring AOP advice: the Kotlin writer
 * is a bean, called through its proxy. With kotlinx-coroutines-reactor on the class path Spring
 * invokes each suspend function in a {@code Mono}, which the hold follows; the build runs this
 * class a second time without it (execution {@code suspend-without-coroutines-reactor}), when
 * Spring invokes the function with the fence's continuation.
 */
@SpringBootTest(
    classes = SpringSuspendTest.App.class,
    properties = {
      "spring.flyway.enabled=false",
      "spring.liquibase.enabled=false",
      "logging.level.root=WARN"
    })
class SpringSuspendTest extends SuspendContract {
  // Compiled by kotlinc into a directory of its own: named, not linked.
  private static final String WRITER = "dev.writerfence.testing.weaving.kotlin.SuspendFencedWriter";
  private static final String DRIVER = "dev.writerfence.testing.weaving.kotlin.SuspendDriver";

  @Autowired
  @Qualifier("suspendFencedWriter")
  Object writer;

  private SuspendChecks checks;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> EmbeddedDatabase.get().jdbcUrl());
    registry.add("spring.datasource.username", () -> "postgres");
  }

  @BeforeEach
  void driveTheProxy() throws ReflectiveOperationException {
    assertThat(AopUtils.isAopProxy(writer)).as("the writer bean is proxied").isTrue();
    Class<?> type = Class.forName(WRITER);
    SuspendingWriter driver =
        (SuspendingWriter) Class.forName(DRIVER).getConstructor(type).newInstance(writer);
    checks = new SuspendChecks(driver, EmbeddedDatabase.get().dataSource());
  }

  @Override
  protected void verify(Check check) throws Exception {
    check.runOn(checks);
  }

  /** The Kotlin writer as a bean, and the starter's auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Object suspendFencedWriter() throws ReflectiveOperationException {
      return Class.forName(WRITER).getConstructor().newInstance();
    }
  }
}
