package dev.writerfence.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.WriterFence;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The process-wide default fence and the {@code writer-fence.*} settings it is built from. */
class ProcessFenceTest {
  private static final String RENEW_INTERVAL = "writer-fence.renew-interval";
  private static final DataSource NOWHERE = new PGSimpleDataSource();

  @AfterEach
  void clear() {
    System.clearProperty(RENEW_INTERVAL);
    ProcessFence.set(null);
  }

  @Test
  void renewalIsOnByDefaultAtAThirdOfTheTtl() {
    WriterFence fence = settings().buildFence(NOWHERE);

    assertThat(fence.defaultTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(fence.renewInterval(fence.defaultTtl())).hasValue(Duration.ofSeconds(10));
    assertThat(fence.renewInterval(Duration.ofSeconds(2)))
        .hasValue(Duration.ofSeconds(2).dividedBy(3));
  }

  @Test
  void renewIntervalSetsTheIntervalCappedAtAThirdOfTheTtl() {
    WriterFence fence = settings(RENEW_INTERVAL, "600ms").buildFence(NOWHERE);

    assertThat(fence.renewInterval(Duration.ofSeconds(2))).hasValue(Duration.ofMillis(600));
    assertThat(fence.renewInterval(Duration.ofSeconds(1)))
        .hasValue(Duration.ofSeconds(1).dividedBy(3));
  }

  @Test
  void renewIntervalOffTurnsRenewalOff() {
    WriterFence fence = settings(RENEW_INTERVAL, "off").buildFence(NOWHERE);

    assertThat(fence.renewInterval(Duration.ofSeconds(30))).isEmpty();
  }

  @Test
  void renewIntervalRefusesValuesUnder100Milliseconds() {
    assertThatThrownBy(() -> settings(RENEW_INTERVAL, "50ms").buildFence(NOWHERE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("renew interval PT0.05S is not allowed: at least 100 ms");
    assertThatThrownBy(() -> settings(RENEW_INTERVAL, "sometimes").buildFence(NOWHERE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("renew-interval 'sometimes' is not a duration");
  }

  @Test
  void theDefaultFenceAcceptsRenewIntervalAsASystemProperty() {
    System.setProperty(RENEW_INTERVAL, "off");

    assertThatThrownBy(ProcessFence::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no WriterFence is configured");
  }

  private static WriterFenceSettings settings(String... keyValues) {
    Properties properties = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      properties.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return WriterFenceSettings.fromProperties(properties);
  }
}
