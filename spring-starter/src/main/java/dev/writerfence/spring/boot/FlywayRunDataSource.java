package dev.writerfence.spring.boot;

import javax.sql.DataSource;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Where the contract's Flyway run connects, so that it can install as the contract's owner while
 * the fence connects as the application's role (ADR 63). In this order:
 *
 * <ol>
 *   <li>{@code writer-fence.schema.flyway.url} or {@code .user} set: those, with {@code .password},
 *       by the rules Spring Boot's Flyway auto-configuration applies to {@code spring.flyway.*}: a
 *       URL makes a new connection source, a user alone one derived from the fence's DataSource
 *       (its URL and driver) with that user and password;
 *   <li>else, when the fence runs on the application's DataSource, the DataSource of the
 *       application's own Flyway, which Spring Boot built from {@code spring.flyway.url}, {@code
 *       .user} and {@code .password} (or the application's {@code @FlywayDataSource}): one rule and
 *       one place for both runs, and the same on Spring Boot 3.5 and 4.0, whose Flyway properties
 *       classes live in different packages;
 *   <li>else the fence's DataSource: a fence on a database of its own ({@code
 *       writer-fence.datasource.url}) does not take the application's database's credentials.
 * </ol>
 */
final class FlywayRunDataSource {
  private FlywayRunDataSource() {}

  /**
   * @param settings {@code writer-fence.schema.flyway.*}
   * @param fence the fence's connections
   * @param applicationFlyway the DataSource the application's Flyway migrates, or {@code null}
   * @return the DataSource to run the contract's migrations on; the fence's when nothing else is
   *     configured
   */
  static DataSource of(
      WriterFenceProperties.Flyway settings,
      WriterFenceDataSource fence,
      DataSource applicationFlyway) {
    if (settings.getUrl() != null) {
      return DataSourceBuilder.create()
          .type(SimpleDriverDataSource.class)
          .url(settings.getUrl())
          .username(settings.getUser())
          .password(settings.getPassword())
          .build();
    }
    if (settings.getUser() != null) {
      return DataSourceBuilder.derivedFrom(fence.dataSource())
          .type(SimpleDriverDataSource.class)
          .username(settings.getUser())
          .password(settings.getPassword())
          .build();
    }
    if (!fence.isDedicated()
        && applicationFlyway != null
        && WriterFenceDataSource.unwrap(applicationFlyway) != fence.dataSource()) {
      return applicationFlyway;
    }
    return fence.dataSource();
  }
}
