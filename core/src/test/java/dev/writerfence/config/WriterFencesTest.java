package dev.writerfence.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The process-wide default fence and the {@code writer-fence.*} settings it is built from. */
class WriterFencesTest {
  private static final String RENEW_INTERVAL = "writer-fence.renew-interval";

  @AfterEach
  void clear() {
    System.clearProperty(RENEW_INTERVAL);
    WriterFences.setDefault(null);
  }

  @Test
  void renewIntervalIsRefusedAsUnknownWhileNothingRenews() {
    WriterFences.setDefault(null);
    System.setProperty(RENEW_INTERVAL, "10s");

    assertThatThrownBy(WriterFences::getDefault)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown setting '" + RENEW_INTERVAL + "'");
  }

  @Test
  void settingsRefuseRenewIntervalToo() {
    Properties properties = new Properties();
    properties.setProperty(RENEW_INTERVAL, "10s");

    assertThatThrownBy(() -> WriterFenceSettings.fromProperties(properties, Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown setting '" + RENEW_INTERVAL + "'");
  }
}
