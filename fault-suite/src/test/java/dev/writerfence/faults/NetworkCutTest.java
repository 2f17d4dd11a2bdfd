package dev.writerfence.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A network cut between a holder and its database: the holder reaches PostgreSQL through a TCP
 * proxy that, at a moment, stops forwarding without closing anything. Renewals then hang; the
 * holder must mark its lease lost before the database lets anyone else in.
 */
class NetworkCutTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration TTL = Duration.ofSeconds(3);

  @Test
  void holderMarksItsLeaseLostBeforeItsTtlEndsWhenTheNetworkIsCut() throws Exception {
    String name = FenceNames.random("network-cut");
    ContractCalls sql = new ContractCalls(DB.dataSource(), "writer_fence");
    LossWatch watch = new LossWatch();
    TcpProxy proxy = new TcpProxy(DB.port());
    try (HikariDataSource pool =
        pool("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres")) {
      WriterFence holder =
          WriterFence.builder(pool)
              .defaultTtl(TTL)
              .queryTimeout(Duration.ofSeconds(1))
              .listener(watch)
              .build(); // renewal on: every TTL/3
      FenceLease lease =
          holder
              .tryAcquire(FenceRequest.builder(name).holderLabel("cut-off").ttl(TTL).build())
              .orElseThrow();
      OffsetDateTime firstExpiry = sql.expiresAt(name);
      await("a renewal through the proxy")
          .atMost(Duration.ofSeconds(3))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> sql.expiresAt(name).isAfter(firstExpiry));

      // The database clock at the cut, read on a warm direct connection: with the monotonic clock
      // it gives an upper bound of the database time at which the holder knew of its loss.
      long beforeAnchor;
      OffsetDateTime dbTimeAtCut;
      try (Connection direct = DB.dataSource().getConnection();
          PreparedStatement now = direct.prepareStatement("SELECT clock_timestamp()")) {
        now.executeQuery().close();
        proxy.cut();
        beforeAnchor = System.nanoTime();
        try (ResultSet rs = now.executeQuery()) {
          rs.next();
          dbTimeAtCut = rs.getObject(1, OffsetDateTime.class);
        }
      }
      long cutAt = beforeAnchor;
      assertThat(watch.await(10)).as("the loss is reported").isTrue();
      OffsetDateTime dbTimeAfterLoss = dbTimeAtCut.plusNanos(watch.lostAtNanos() - beforeAnchor);
      long lostAfterMillis = TimeUnit.NANOSECONDS.toMillis(watch.lostAtNanos() - cutAt);
      OffsetDateTime expiry = sql.expiresAt(name); // final: no renewal got through after the cut

      System.out.printf(
          "network cut: lease lost %d ms after the cut (TTL %d ms, query timeout 1 s, renewal"
              + " every %d ms); the database would have let another writer in %d ms after the"
              + " loss was known; reason: %s%n",
          lostAfterMillis,
          TTL.toMillis(),
          TTL.toMillis() / 3,
          Duration.between(dbTimeAfterLoss, expiry).toMillis(),
          watch.reason());
      assertThat(lostAfterMillis).as("lost before the TTL ends").isLessThan(TTL.toMillis());
      assertThat(dbTimeAfterLoss)
          .as("the loss was known before the row expired on the database clock")
          .isBefore(expiry);
      assertThat(lease.isValid()).isFalse();
      FenceLostException lost = catchThrowableOfType(FenceLostException.class, lease::checkValid);
      assertThat(lost.fencingToken()).isEqualTo(lease.fencingToken());

      // Another writer, on the database directly, gets in only once the row expired.
      WriterFence other = WriterFence.builder(DB.dataSource()).withoutRenewal().build();
      FenceLease taken =
          await("takeover after the expiry")
              .atMost(Duration.ofSeconds(10))
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () ->
                      other
                          .tryAcquire(
                              FenceRequest.builder(name).holderLabel("other").ttl(TTL).build())
                          .orElse(null),
                  l -> l != null);
      assertThat(taken.acquiredAt()).isAfterOrEqualTo(expiry.toInstant());
      assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
      assertThat(other.release(taken)).isTrue();
      proxy.close(); // the holder's hung statements end with their sockets
      holder.close();
    } finally {
      proxy.close();
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("behind-proxy");
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(3);
    config.setConnectionTimeout(1000);
    config.addDataSourceProperty("connectTimeout", "2");
    config.addDataSourceProperty("socketTimeout", "10");
    return new HikariDataSource(config);
  }
}
