package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import java.util.Arrays;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Spring Boot's task executor ({@code applicationTaskExecutor}, what {@code @Async} methods run on)
 * and task scheduler carry the holds of the code that hands them a task: a {@link TaskDecorator}
 * bean, which Spring Boot applies to both. With Micrometer's context-propagation on the class path
 * it is Spring's {@link ContextPropagatingTaskDecorator} (the held fences travel through core's
 * {@code HeldFencesAccessor}, beside every other registered thread-local); without it, {@link
 * HoldCarryingTaskDecorator}. Off with {@code writer-fence.task.carry-holds=false}.
 *
 * <p>An application's own {@code TaskDecorator} bean keeps working: Spring Boot 4 applies every
 * decorator bean, so both apply there; Spring Boot 3.5 applies a decorator only when it is the one
 * bean of its type, so there the starter adds none beside the application's (which may compose
 * {@link HoldCarryingTaskDecorator} itself).
 */
@AutoConfiguration(
    beforeName = {
      "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration",
      "org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration"
    })
@ConditionalOnClass({WriterFence.class, TaskDecorator.class})
@ConditionalOnProperty(
    prefix = "writer-fence",
    name = {"enabled", "task.carry-holds"},
    havingValue = "true",
    matchIfMissing = true)
@Conditional(WriterFenceTaskAutoConfiguration.BootAppliesOurDecorator.class)
public class WriterFenceTaskAutoConfiguration {
  /** The name of the starter's {@link TaskDecorator} bean. */
  public static final String DECORATOR_BEAN = "writerFenceTaskDecorator";

  /** Made by Spring. */
  public WriterFenceTaskAutoConfiguration() {}

  /**
   * With context-propagation: every registered thread-local travels, the held fences among them.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.context.ContextSnapshotFactory")
  static class WithContextPropagation {
    @Bean(DECORATOR_BEAN)
    @ConditionalOnMissingBean(name = DECORATOR_BEAN)
    TaskDecorator writerFenceTaskDecorator() {
      return new ContextPropagatingTaskDecorator();
    }
  }

  /** Without context-propagation: the held fences alone. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("io.micrometer.context.ContextSnapshotFactory")
  static class HoldsOnly {
    @Bean(DECORATOR_BEAN)
    @ConditionalOnMissingBean(name = DECORATOR_BEAN)
    TaskDecorator writerFenceTaskDecorator() {
      return new HoldCarryingTaskDecorator();
    }
  }

  /**
   * Spring Boot 4 composes every {@code TaskDecorator} bean; Spring Boot 3.5 applies one only when
   * it is the single bean of its type, so a second one there would silently disable the
   * application's own.
   */
  static final class BootAppliesOurDecorator extends SpringBootCondition
      implements ConfigurationCondition {
    @Override
    public ConfigurationPhase getConfigurationPhase() {
      return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String version = SpringBootVersion.getVersion();
      if (version != null && !version.startsWith("3.")) {
        return ConditionOutcome.match("Spring Boot " + version + " applies every TaskDecorator");
      }
      ConfigurableListableBeanFactory beans = context.getBeanFactory();
      String[] own =
          beans == null
              ? new String[0]
              : beans.getBeanNamesForType(TaskDecorator.class, true, false);
      if (own.length == 0) {
        return ConditionOutcome.match("no TaskDecorator bean of the application's");
      }
      return ConditionOutcome.noMatch(
          "Spring Boot "
              + version
              + " applies one TaskDecorator only: the application's "
              + Arrays.toString(own)
              + " (compose HoldCarryingTaskDecorator into it to carry holds)");
    }
  }
}
