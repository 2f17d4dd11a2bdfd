package dev.writerfence.spring.boot3;

import dev.writerfence.WriterFence;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceDataSource;
import dev.writerfence.spring.boot.WriterFenceProperties;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@code /actuator/health/writerFence} on Spring Boot 3, where the starter's own health
 * configuration (written against Spring Boot 4's health API) does not apply: database reachable,
 * schema present at its version (and, for {@code backend=advisory}, the function its fencing tokens
 * come from). Everything else comes from {@code writer-fence-spring-boot-starter} as it is.
 */
@AutoConfiguration(after = WriterFenceAutoConfiguration.class)
@ConditionalOnClass(AbstractHealthIndicator.class)
@ConditionalOnBean({WriterFence.class, WriterFenceDataSource.class})
public class WriterFenceBoot3HealthAutoConfiguration {

  /**
   * @param dataSource the fence's connections
   * @param properties {@code writer-fence.*}
   * @return the {@code writerFence} contributor
   */
  @Bean
  @ConditionalOnMissingBean(name = "writerFenceHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("writerfence")
  WriterFenceBoot3HealthIndicator writerFenceHealthIndicator(
      WriterFenceDataSource dataSource, WriterFenceProperties properties) {
    return new WriterFenceBoot3HealthIndicator(
        WriterFenceActuatorAutoConfiguration.healthCheck(dataSource, properties));
  }
}
