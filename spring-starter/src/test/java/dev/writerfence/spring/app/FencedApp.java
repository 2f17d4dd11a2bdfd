package dev.writerfence.spring.app;

import io.github.resilience4j.core.ContextAwareScheduledThreadPoolExecutor;
import io.github.resilience4j.spring6.fallback.configure.FallbackConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfigurationProperties;
import io.github.resilience4j.spring6.spelresolver.configure.SpelResolverConfiguration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The application the @SpringBootTest tests run: fenced services on the embedded PostgreSQL, and
 * Resilience4j's {@code @Retry} aspect with its registry ({@code resilience4j.retry.*}).
 */
@SpringBootApplication(scanBasePackages = "none")
@Import({
  Writers.class,
  UploadsImpl.class,
  TypeFenced.class,
  SinkImpl.class,
  Unadvisable.class,
  EventLog.class,
  RetryConfiguration.class,
  FallbackConfiguration.class,
  SpelResolverConfiguration.class
})
public class FencedApp {

  @Bean
  @ConfigurationProperties("resilience4j.retry")
  RetryConfigurationProperties retryConfigurationProperties() {
    return new RetryConfigurationProperties();
  }

  @Bean(destroyMethod = "shutdown")
  ContextAwareScheduledThreadPoolExecutor resilience4jScheduler() {
    return ContextAwareScheduledThreadPoolExecutor.newScheduledThreadPool().corePoolSize(1).build();
  }
}
