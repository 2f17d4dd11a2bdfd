package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceProperties;
import dev.writerfence.testing.EmbeddedDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter and the process fence, in one process, on the keys of every mode at once, each with
 * the catalog's example value: Spring starts and binds what it reads, and core's parser (the
 * AspectJ aspect's fence) accepts the same properties.
 */
class SettingsCatalogSpringTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class, WriterFenceAutoConfiguration.class));

  /** {@code writer-fence.KEY=VALUE} for every setting; the database is the embedded one. */
  private static List<String> everySetting() {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    List<String> pairs = new ArrayList<>();
    for (Setting<?> s : SettingsCatalog.all()) {
      String key = s.isFamily() ? s.familyPrefix() + "aws-s3-v2" : s.key();
      String value =
          s == SettingsCatalog.DATASOURCE_URL
              ? db.jdbcUrl()
              : s == SettingsCatalog.DATASOURCE_PASSWORD ? "" : s.example();
      pairs.add(SettingsCatalog.PREFIX + key + "=" + value);
    }
    return pairs;
  }

  @Test
  void springAndTheProcessFenceAcceptEveryKeyOfEveryMode() {
    List<String> pairs = everySetting();
    runner
        .withPropertyValues(pairs.toArray(String[]::new))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WriterFenceProperties p = context.getBean(WriterFenceProperties.class);
              assertThat(p.getTtl()).isEqualTo(SettingsCatalog.TTL.parse("2m"));
              assertThat(p.getRetry().getMaxAttempts()).isEqualTo(7);
              assertThat(p.getSchema().getInitialize()).isFalse();
              WriterFence fence = context.getBean(WriterFence.class);
              assertThat(fence.defaultTtl()).isEqualTo(Duration.ofMinutes(2));
            });

    Properties system = new Properties();
    for (String pair : pairs) {
      int eq = pair.indexOf('=');
      system.setProperty(pair.substring(0, eq), pair.substring(eq + 1));
    }
    WriterFenceSettings.fromProperties(system).check();
  }

  @Test
  void everyValueSpringReadsAsTheCatalogsExampleBindsToTheSameValue() {
    // Spring converts values itself; each example must mean the same to it as to the catalog.
    runner
        .withPropertyValues(everySetting().toArray(String[]::new))
        .run(
            context -> {
              WriterFenceProperties p = context.getBean(WriterFenceProperties.class);
              assertThat(p.getHolder()).isEqualTo(SettingsCatalog.HOLDER.example());
              assertThat(p.renewIntervalDuration())
                  .contains(
                      SettingsCatalog.RENEW_INTERVAL.parse(
                          SettingsCatalog.RENEW_INTERVAL.example()));
              assertThat(p.getQueryTimeout())
                  .isEqualTo(
                      SettingsCatalog.QUERY_TIMEOUT.parse(SettingsCatalog.QUERY_TIMEOUT.example()));
              assertThat(p.busyRetryPolicy().initialInterval())
                  .isEqualTo(
                      SettingsCatalog.RETRY_INITIAL_INTERVAL.parse(
                          SettingsCatalog.RETRY_INITIAL_INTERVAL.example()));
              assertThat(p.busyRetryPolicy().multiplier())
                  .isEqualTo(
                      SettingsCatalog.RETRY_MULTIPLIER.parse(
                          SettingsCatalog.RETRY_MULTIPLIER.example()));
              assertThat(p.busyRetryPolicy().maxInterval())
                  .isEqualTo(
                      SettingsCatalog.RETRY_MAX_INTERVAL.parse(
                          SettingsCatalog.RETRY_MAX_INTERVAL.example()));
              assertThat(p.busyRetryPolicy().maxWait())
                  .isEqualTo(
                      SettingsCatalog.RETRY_MAX_WAIT.parse(
                          SettingsCatalog.RETRY_MAX_WAIT.example()));
              assertThat(p.getPriority())
                  .isEqualTo(SettingsCatalog.PRIORITY.parse(SettingsCatalog.PRIORITY.example()));
              assertThat(p.getQueue().getLapse())
                  .isEqualTo(
                      SettingsCatalog.QUEUE_LAPSE.parse(SettingsCatalog.QUEUE_LAPSE.example()));
              assertThat(p.getQueue().getPollInterval())
                  .isEqualTo(
                      SettingsCatalog.QUEUE_POLL_INTERVAL.parse(
                          SettingsCatalog.QUEUE_POLL_INTERVAL.example()));
              assertThat(p.getBackend()).isEqualTo(SettingsCatalog.BACKEND.example());
              assertThat(p.getAdvisory().getPoolSize())
                  .isEqualTo(
                      SettingsCatalog.ADVISORY_POOL_SIZE.parse(
                          SettingsCatalog.ADVISORY_POOL_SIZE.example()));
              assertThat(p.getDatasource().getPoolSize())
                  .isEqualTo(
                      SettingsCatalog.DATASOURCE_POOL_SIZE.parse(
                          SettingsCatalog.DATASOURCE_POOL_SIZE.example()));
              assertThat(p.getSchema().getName()).isEqualTo(SettingsCatalog.SCHEMA_NAME.example());
              assertThat(p.isEnabled()).isTrue();
            });
  }
}
