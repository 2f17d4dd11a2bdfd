package dev.writerfence.spring.actuate;

import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code writerFence} health contributor on Spring Boot 4: {@link WriterFenceHealthCheck} in
 * Spring Boot 4's health API. A database that cannot answer is DOWN with the exception.
 */
public class WriterFenceHealthIndicator extends AbstractHealthIndicator {
  private final WriterFenceHealthCheck check;

  /**
   * The lease row's health.
   *
   * @param dataSource where the fence's connections come from
   * @param schema the contract's schema (a checked lower-case identifier)
   * @param queryTimeoutSeconds bound of each statement
   */
  public WriterFenceHealthIndicator(DataSource dataSource, String schema, int queryTimeoutSeconds) {
    this(dataSource, schema, queryTimeoutSeconds, "lease");
  }

  /**
   * @param dataSource where the fence's connections come from
   * @param schema the contract's schema (a checked lower-case identifier)
   * @param queryTimeoutSeconds bound of each statement
   * @param backend {@code lease} or {@code advisory}, shown as a detail; {@code advisory} also
   *     checks the function its acquire takes fencing tokens from
   */
  public WriterFenceHealthIndicator(
      DataSource dataSource, String schema, int queryTimeoutSeconds, String backend) {
    this(new WriterFenceHealthCheck(dataSource, schema, queryTimeoutSeconds, backend));
  }

  /**
   * @param check the fence's health check
   */
  public WriterFenceHealthIndicator(WriterFenceHealthCheck check) {
    super("writer-fence health check failed");
    this.check = check;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws SQLException {
    WriterFenceHealthCheck.Outcome outcome = check.check();
    builder.status(outcome.status()).withDetails(outcome.details());
  }
}
