package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.holdersOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.testing.FenceNames;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** {@code writer-fence.backend=advisory} builds a fence on the advisory-lock backend. */
class AdvisorySettingsTest {

  private static WriterFenceSettings settings(String backend) {
    Properties p = new Properties();
    p.setProperty("writer-fence.backend", backend);
    p.setProperty("writer-fence.datasource.url", DB.jdbcUrl());
    p.setProperty("writer-fence.datasource.username", "postgres");
    return WriterFenceSettings.fromProperties(p);
  }

  @Test
  void backendAdvisoryBuildsAnAdvisoryLockStoreOnItsOwnPool() throws Exception {
    String name = FenceNames.random("settings-advisory");
    WriterFenceSettings settings = settings("advisory");
    DataSource own = settings.dataSource();
    try (WriterFence fence = settings.buildFence(own)) {
      assertThat(FencedCalls.store(fence)).isInstanceOf(AdvisoryLockStore.class);
      assertThat(((AdvisoryLockStore) FencedCalls.store(fence)).poolSize())
          .isEqualTo(AdvisoryLockStore.DEFAULT_POOL_SIZE);

      long held = fence.call(FenceRequest.of(name), () -> holdersOf(AdvisoryKeys.keyOf(name)));

      assertThat(held).isEqualTo(1);
      assertThat(holdersOf(AdvisoryKeys.keyOf(name))).isZero();
    } finally {
      ((AutoCloseable) own).close();
    }
  }

  @Test
  void datasourcePoolSizeIsTheAdvisoryStoresLimitToo() throws Exception {
    Properties p = new Properties();
    p.setProperty("writer-fence.backend", "advisory");
    p.setProperty("writer-fence.datasource.url", DB.jdbcUrl());
    p.setProperty("writer-fence.datasource.username", "postgres");
    p.setProperty("writer-fence.datasource.pool-size", "3");
    WriterFenceSettings settings = WriterFenceSettings.fromProperties(p);
    DataSource own = settings.dataSource();
    try (WriterFence fence = settings.buildFence(own)) {
      assertThat(((AdvisoryLockStore) FencedCalls.store(fence)).poolSize()).isEqualTo(3);
    } finally {
      ((AutoCloseable) own).close();
    }
  }

  @Test
  void anUnknownBackendNamesBothAllowedOnes() {
    assertThatThrownBy(() -> settings("redis").buildFence(DB.dataSource()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backend 'redis' is not allowed: lease, advisory or lease-rpc");
  }
}
