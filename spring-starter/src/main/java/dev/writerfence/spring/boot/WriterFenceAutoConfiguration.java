package dev.writerfence.spring.boot;

import dev.writerfence.FenceListener;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spring.aop.WriterFenceAdviceCheck;
import dev.writerfence.spring.aop.WriterFenceAdvisor;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of writer-fence: the fence (unless the application defines its own {@link
 * WriterFence} bean), its DataSource, the {@code @WriterFenced} advisor, the schema initializer and
 * the release of held leases on shutdown.
 */
@AutoConfiguration(
    afterName = {
      // Spring Boot 4's names, then Spring Boot 3's: the same classes in other packages.
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
      "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration",
      "org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration"
    })
@ConditionalOnClass({WriterFence.class, DataSource.class})
@ConditionalOnBooleanProperty(name = "writer-fence.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WriterFenceProperties.class)
public class WriterFenceAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceAutoConfiguration.class);

  /**
   * Stops the start-up on a Spring Boot the starter does not support.
   *
   * @throws IllegalStateException naming the running version and the supported ones
   */
  public WriterFenceAutoConfiguration() {
    SupportedSpringBoot.check();
  }

  /**
   * The fence's connections: {@code writer-fence.datasource.*}, else the application's DataSource
   * behind any transaction-aware proxy.
   */
  @Bean
  @ConditionalOnMissingBean
  WriterFenceDataSource writerFenceDataSource(
      WriterFenceProperties properties, ObjectProvider<DataSource> applicationDataSource) {
    if (properties.getDatasource().getUrl() != null) {
      return WriterFenceDataSource.dedicated(properties);
    }
    DataSource ds = applicationDataSource.getIfUnique();
    if (ds == null) {
      throw WriterFenceStartupException.noDataSource();
    }
    return WriterFenceDataSource.shared(ds);
  }

  /**
   * The contract into the database before the fence exists; after the application's own database
   * initialization (its Flyway or Liquibase run, which may include the contract's changelog).
   */
  @Bean
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  WriterFenceSchemaInitializer writerFenceSchemaInitializer(
      WriterFenceDataSource dataSource,
      WriterFenceProperties properties,
      ObjectProvider<ContractMigration> migration) {
    return new WriterFenceSchemaInitializer(
        dataSource.dataSource(), properties.getSchema(), migration.getIfUnique());
  }

  /**
   * The contract's own Flyway run when the application migrates with Flyway (it has a Flyway bean):
   * the application's {@code spring.flyway.*} locations and history stay its own; the run connects
   * as the application's Flyway does, or as {@code writer-fence.schema.flyway.*} say ({@link
   * FlywayRunDataSource}).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.flywaydb.core.Flyway")
  @ConditionalOnBean(type = "org.flywaydb.core.Flyway")
  @ConditionalOnBooleanProperty(name = "writer-fence.schema.flyway.enabled", matchIfMissing = true)
  static class FlywayConfiguration {
    @Bean
    @ConditionalOnMissingBean(ContractMigration.class)
    WriterFenceFlywayMigration writerFenceFlywayMigration(
        WriterFenceProperties properties,
        WriterFenceDataSource dataSource,
        ObjectProvider<org.flywaydb.core.Flyway> applicationFlyway) {
      org.flywaydb.core.Flyway flyway = applicationFlyway.getIfUnique();
      DataSource run =
          FlywayRunDataSource.of(
              properties.getSchema().getFlyway(),
              dataSource,
              flyway == null ? null : flyway.getConfiguration().getDataSource());
      return new WriterFenceFlywayMigration(properties.getSchema(), run);
    }
  }

  /**
   * The backend's store, {@code writer-fence.backend} found by name in core's {@code
   * BackendRegistry} ({@code lease}, {@code advisory}, {@code lease-rpc}, or any other registered
   * backend), over the fence's DataSource. With {@code backend=advisory}, at most {@code
   * writer-fence.advisory.pool-size} connections in use at once, and building it runs the core's
   * self-check, which stops the start-up behind a pooler that multiplexes server sessions
   * (transaction pooling). Not created when the application defines its own fence or its own store
   * (its {@link LeaseStore} bean then replaces this one). Closed by {@link WriterFenceShutdown}
   * right after the fence, before any DataSource closes; the {@code close()} Spring infers for it
   * afterwards does nothing more.
   */
  @Bean
  @ConditionalOnMissingBean({WriterFence.class, LeaseStore.class})
  LeaseStore writerFenceLeaseStore(
      WriterFenceProperties properties,
      WriterFenceDataSource dataSource,
      WriterFenceSchemaInitializer schemaInitializer) {
    if (properties.isAdvisory() && !dataSource.isDedicated()) {
      LOG.info(
          "writer-fence: the advisory-lock backend pins a connection of the application's"
              + " DataSource per fence held, {} at most (writer-fence.advisory.pool-size); set"
              + " writer-fence.datasource.url for a pool of the fence's own",
          properties.getAdvisory().getPoolSize());
    }
    return properties.createStore(dataSource.dataSource());
  }

  /**
   * The fence, from {@code writer-fence.*} ({@link WriterFenceProperties#builder}) on the backend's
   * {@link LeaseStore} bean; busy retry from the application's Resilience4j {@link RetryRegistry}
   * when it has a retry named {@code writer-fence}, bounded by {@code writer-fence.retry.max-wait}
   * when that is set. Every {@link FenceListener} bean gets its events; the application's
   * observation registry observes acquires and holds ({@link WriterFenceObservations}). Closed by
   * {@link WriterFenceShutdown} before any DataSource closes; the {@code close()} Spring infers for
   * it afterwards finds it closed and does nothing.
   */
  @Bean
  @ConditionalOnMissingBean
  WriterFence writerFence(
      WriterFenceProperties properties,
      WriterFenceDataSource dataSource,
      WriterFenceSchemaInitializer schemaInitializer,
      ObjectProvider<FenceListener> listeners,
      ObjectProvider<RetryRegistry> retryRegistry,
      ObjectProvider<LeaseStore> store,
      ObjectProvider<WriterFenceObservations> observations) {
    LeaseStore backend = store.getIfUnique(() -> properties.createStore(dataSource.dataSource()));
    WriterFence.Builder builder = properties.builder(backend);
    WriterFenceObservations observed = observations.getIfUnique();
    if (observed != null) {
      observed.applyTo(builder);
    }
    WriterFence fence =
        builder
            .defaultHolderLabel(defaultHolderLabel(properties))
            .retryPolicy(busyRetryPolicy(properties, retryRegistry))
            .listener(CompositeFenceListener.of(listeners.orderedStream().toList()))
            // Not the core's JVM hook: at SIGTERM it would free leases while requests still run.
            // Spring drains its work first (graceful shutdown), then closes the context, and the
            // shutdown bean closes the fence: leases end after the work that holds them.
            .releaseOnJvmShutdown(false)
            .build();
    WriterFenceProcessDefault.install(fence);
    return fence;
  }

  /**
   * @param properties the settings
   * @return the default holder label as rows show it: {@code writer-fence.holder} with this
   *     instance appended ({@code upload-service@host:pid}, {@link HolderLabel#of}), or the core's
   *     default {@code host:pid}
   */
  public static String defaultHolderLabel(WriterFenceProperties properties) {
    return properties.getHolder() != null
        ? HolderLabel.of(properties.getHolder())
        : HolderLabel.instance();
  }

  private static BusyRetryPolicy busyRetryPolicy(
      WriterFenceProperties properties, ObjectProvider<RetryRegistry> retryRegistry) {
    RetryRegistry registry = retryRegistry.getIfUnique();
    Optional<BusyRetryPolicy> fromRegistry =
        registry == null ? Optional.empty() : BusyRetryFromRegistry.policy(registry);
    if (fromRegistry.isPresent()) {
      // The registry's retry shapes the attempts and their waits; writer-fence.retry.max-wait,
      // when set, still bounds the whole wait: it is the budget every busy answer names, and the
      // registry's retry has no such setting to take its place.
      Duration maxWait = properties.getRetry().getMaxWait();
      BusyRetryPolicy policy =
          maxWait == null ? fromRegistry.get() : fromRegistry.get().withMaxWait(maxWait);
      LOG.info(
          "writer-fence: busy retry from the RetryRegistry's '{}' retry: {}"
              + " (writer-fence.retry.max-wait {}; the other writer-fence.retry.* not used)",
          BusyRetryFromRegistry.INSTANCE,
          policy,
          maxWait == null ? "not set" : "applied");
      return policy;
    }
    return properties.busyRetryPolicy();
  }

  /**
   * Closes the fence (releasing its held leases), then its store, when the context closes, before
   * any DataSource closes. Not lazy: with {@code spring.main.lazy-initialization} nothing else
   * would create it.
   */
  @Bean
  @Lazy(false)
  WriterFenceShutdown writerFenceShutdown(WriterFence fence) {
    return new WriterFenceShutdown(fence);
  }

  /** The {@code @WriterFenced} advisor for Spring AOP proxies. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static WriterFenceAdvisor writerFenceAdvisor(ObjectProvider<WriterFence> fence) {
    return new WriterFenceAdvisor(SingletonSupplier.of(fence::getObject));
  }

  /** Logs methods a proxy can never advise, and neighbours ordered across the fence. */
  @Bean
  static WriterFenceAdviceCheck writerFenceAdviceCheck(
      ConfigurableListableBeanFactory beanFactory) {
    return new WriterFenceAdviceCheck(beanFactory, WriterFenceAdvisor.ORDER);
  }
}
