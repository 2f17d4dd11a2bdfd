package dev.writerfence.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A database host that accepts TCP connections and never answers (a stopped server behind a proxy,
 * a black-holed route): a fence on the data source built from the settings reports it unavailable
 * within about the query timeout, and the guarded code does not run.
 */
class SilentDatabaseTest {
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration ANSWER_WITHIN = QUERY_TIMEOUT.plusSeconds(6);

  private ServerSocket silent;
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startSilentServer() throws IOException {
    silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor =
        new Thread(
            () -> {
              try {
                while (true) {
                  accepted.add(silent.accept()); // and never a byte back
                }
              } catch (IOException closed) {
                // the test is over
              }
            },
            "silent-database");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @AfterEach
  void stopSilentServer() throws IOException {
    silent.close();
    for (Socket s : accepted) {
      s.close();
    }
  }

  @Test
  void pooledDefaultDataSourceOnASilentServerIsUnavailableWithinTheQueryTimeout() throws Exception {
    Properties properties = new Properties();
    properties.setProperty("writer-fence.datasource.url", url());
    properties.setProperty("writer-fence.query-timeout", QUERY_TIMEOUT.toSeconds() + "s");
    WriterFenceSettings settings = WriterFenceSettings.fromProperties(properties);

    assertUnavailableInTime(settings::dataSource, settings);
  }

  @Test
  void unpooledDefaultDataSourceOnASilentServerIsUnavailableWithinTheQueryTimeout()
      throws Exception {
    Properties properties = new Properties();
    properties.setProperty("writer-fence.datasource.url", url());
    properties.setProperty("writer-fence.query-timeout", QUERY_TIMEOUT.toSeconds() + "s");
    WriterFenceSettings settings = WriterFenceSettings.fromProperties(properties);

    assertUnavailableInTime(() -> DataSources.unpooled(url(), null, null, QUERY_TIMEOUT), settings);
  }

  private void assertUnavailableInTime(DataSourceFactory factory, WriterFenceSettings settings)
      throws Exception {
    AtomicInteger ran = new AtomicInteger();
    DataSource[] built = new DataSource[1];
    try {
      long[] elapsedMillis = new long[1];
      Throwable outcome =
          assertTimeoutPreemptively(
              Duration.ofSeconds(30),
              () -> {
                long started = System.nanoTime();
                built[0] = factory.create();
                WriterFence fence = settings.buildFence(built[0]);
                Throwable thrown =
                    catchThrowable(
                        () -> fence.run(FenceRequest.of("corpus"), ran::incrementAndGet));
                elapsedMillis[0] = (System.nanoTime() - started) / 1_000_000;
                return thrown;
              },
              "a fence on a silent database hung instead of failing closed");

      assertThat(outcome).isInstanceOf(WriterFenceUnavailableException.class);
      assertThat(ran).hasValue(0);
      assertThat(elapsedMillis[0])
          .as("milliseconds until unavailable, query timeout %s", QUERY_TIMEOUT)
          .isLessThan(ANSWER_WITHIN.toMillis());
    } finally {
      if (built[0] instanceof AutoCloseable pool) {
        pool.close();
      }
    }
  }

  private String url() {
    return "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/postgres";
  }

  @FunctionalInterface
  private interface DataSourceFactory {
    DataSource create();
  }
}
