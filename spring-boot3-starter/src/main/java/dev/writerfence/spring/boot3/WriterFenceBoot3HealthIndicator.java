package dev.writerfence.spring.boot3;

import dev.writerfence.spring.actuate.WriterFenceHealthCheck;
import java.sql.SQLException;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The {@code writerFence} health contributor on Spring Boot 3: {@link WriterFenceHealthCheck} in
 * Spring Boot 3's health API ({@code org.springframework.boot.actuate.health}), the same details
 * and statuses as on Spring Boot 4. A database that cannot answer is DOWN with the exception.
 */
public class WriterFenceBoot3HealthIndicator extends AbstractHealthIndicator {
  private final WriterFenceHealthCheck check;

  /**
   * @param check the fence's health check
   */
  public WriterFenceBoot3HealthIndicator(WriterFenceHealthCheck check) {
    super("writer-fence health check failed");
    this.check = check;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws SQLException {
    WriterFenceHealthCheck.Outcome outcome = check.check();
    builder.status(outcome.status()).withDetails(outcome.details());
  }
}
