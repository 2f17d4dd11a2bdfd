package dev.writerfence.spring;

import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.weaving.InProcessWeavingContract;
import dev.writerfence.testing.weaving.InterfaceFenced;
import dev.writerfence.testing.weaving.InterfaceFencedWriter;
import dev.writerfence.testing.weaving.MethodFencedWriter;
import dev.writerfence.testing.weaving.ReactiveFencedWriter;
import dev.writerfence.testing.weaving.RefusedFencedWriter;
import dev.writerfence.testing.weaving.TypeFencedWriter;
import dev.writerfence.testing.weaving.WeavingSubject;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The weaving contract through the starter's Spring AOP advice: the contract's writers are beans,
 * and every call goes through their proxies.
 */
@SpringBootTest(
    classes = SpringWeavingContractTest.App.class,
    properties = {
      "spring.flyway.enabled=false",
      "spring.liquibase.enabled=false",
      "logging.level.root=WARN"
    })
class SpringWeavingContractTest extends InProcessWeavingContract {
  @Autowired WriterFence fence;
  @Autowired MethodFencedWriter methodFenced;
  @Autowired TypeFencedWriter typeFenced;
  @Autowired InterfaceFenced interfaceFenced;
  @Autowired ReactiveFencedWriter reactiveFenced;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> EmbeddedDatabase.get().jdbcUrl());
    registry.add("spring.datasource.username", () -> "postgres");
  }

  @Override
  protected WeavingSubject subject() {
    return new WeavingSubject(
        EmbeddedDatabase.get().jdbcUrl(),
        "postgres",
        fence,
        methodFenced,
        typeFenced,
        interfaceFenced,
        reactiveFenced,
        SpringWeavingContractTest::refusedAtStartUp);
  }

  /**
   * A context with the writer whose result cannot be held: the advisor refuses it as the context
   * starts, so this throws.
   */
  private static RefusedFencedWriter refusedAtStartUp() {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(RefusedApp.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.datasource.url=" + EmbeddedDatabase.get().jdbcUrl(),
                "spring.datasource.username=postgres",
                "spring.flyway.enabled=false",
                "spring.liquibase.enabled=false",
                "logging.level.root=WARN")
            .run()) {
      return context.getBean(RefusedFencedWriter.class);
    }
  }

  /** The writer whose result cannot be held, with the starter's auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class RefusedApp {
    @Bean
    RefusedFencedWriter refusedFencedWriter() {
      return new RefusedFencedWriter();
    }
  }

  /** The contract's writers as beans, and the starter's auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    MethodFencedWriter methodFencedWriter() {
      return new MethodFencedWriter();
    }

    @Bean
    TypeFencedWriter typeFencedWriter() {
      return new TypeFencedWriter();
    }

    @Bean
    InterfaceFenced interfaceFencedWriter() {
      return new InterfaceFencedWriter();
    }

    @Bean
    ReactiveFencedWriter reactiveFencedWriter() {
      return new ReactiveFencedWriter();
    }
  }
}
