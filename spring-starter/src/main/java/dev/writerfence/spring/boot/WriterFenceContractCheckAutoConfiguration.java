package dev.writerfence.spring.boot;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;

/**
 * The start-up check of the installed SQL contract ({@link WriterFenceContractCheck}, {@code
 * writer-fence.schema.check}), beside the fence the starter configures: wherever the fence has its
 * DataSource.
 */
@AutoConfiguration(after = WriterFenceAutoConfiguration.class)
@ConditionalOnBean(WriterFenceDataSource.class)
public class WriterFenceContractCheckAutoConfiguration {

  /**
   * The check, created after the contract's migration run and schema initializer (its parameters),
   * so that it reads what they installed. Not lazy: with {@code spring.main.lazy-initialization}
   * nothing else would create it.
   *
   * @param dataSource the fence's connections
   * @param properties {@code writer-fence.*}
   * @param initializer the schema initializer, which runs the migration and the install
   * @param migration the contract's migration run, if any: created first, so that one that runs
   *     when it is created has run too
   * @return the check
   */
  @Bean
  @Lazy(false)
  @ConditionalOnMissingBean
  WriterFenceContractCheck writerFenceContractCheck(
      WriterFenceDataSource dataSource,
      WriterFenceProperties properties,
      ObjectProvider<WriterFenceSchemaInitializer> initializer,
      ObjectProvider<ContractMigration> migration) {
    migration.ifUnique(created -> {});
    initializer.ifUnique(created -> {});
    return new WriterFenceContractCheck(dataSource, properties);
  }
}
