package dev.writerfence.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/** {@link WriterFenceSettings#check()}: every value named before anything connects. */
class SettingsCheckTest {

  @Test
  void goodSettingsPass() {
    assertThatCode(
            () ->
                settings(
                        "datasource.url=jdbc:postgresql://127.0.0.1:1/app",
                        "backend=advisory",
                        "ttl=30s",
                        "renew-interval=off",
                        "retry.max-attempts=5",
                        "query-timeout=2s")
                    .check())
        .doesNotThrowAnyException();
  }

  @Test
  void eachBadValueIsNamed() {
    String url = "datasource.url=jdbc:postgresql://127.0.0.1:1/app";
    assertRejected("datasource.url", "ttl=30s");
    assertRejected("datasource.url 'jdbc:mysql://h/db'", "datasource.url=jdbc:mysql://h/db");
    assertRejected("backend 'redis'", url, "backend=redis");
    assertRejected("TTL PT0.5S", url, "ttl=500ms");
    assertRejected("renew interval PT0.05S", url, "renew-interval=50ms");
    assertRejected("renew-interval 'often'", url, "renew-interval=often");
    assertRejected("retry.max-attempts 'many'", url, "retry.max-attempts=many");
    assertRejected("query timeout PT0.1S", url, "query-timeout=100ms");
    assertRejected("schema", url, "schema=Bad-Schema");
    assertRejected(
        "datasource.pool-size '0' is not allowed: a whole number from 1 to 100",
        url,
        "datasource.pool-size=0");
    assertRejected("datasource.pool-size '101'", url, "datasource.pool-size=101");
    assertRejected(
        "datasource.pool-size 'four' is not a whole number", url, "datasource.pool-size=four");
    assertRejected(
        "datasource.pool-size '1' is not allowed with backend=advisory: at least 2",
        url,
        "backend=advisory",
        "datasource.pool-size=1");
    assertRejected(
        "datasource.pool-size '1' is not allowed with queue.listen=true: at least 2",
        url,
        "queue.listen=true",
        "datasource.pool-size=1");
  }

  @Test
  void aPoolOfOneServesTheLeaseRow() {
    assertThatCode(
            () ->
                settings(
                        "datasource.url=jdbc:postgresql://127.0.0.1:1/app",
                        "datasource.pool-size=1")
                    .check())
        .doesNotThrowAnyException();
  }

  private static void assertRejected(String named, String... lines) {
    assertThatThrownBy(() -> settings(lines).check())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(named);
  }

  private static WriterFenceSettings settings(String... lines) {
    Properties p = new Properties();
    for (String line : lines) {
      int eq = line.indexOf('=');
      p.setProperty(WriterFenceSettings.PREFIX + line.substring(0, eq), line.substring(eq + 1));
    }
    return WriterFenceSettings.fromProperties(p);
  }
}
