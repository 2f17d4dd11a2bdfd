package dev.writerfence.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.store.BackendRegistry;
import dev.writerfence.store.advisory.AdvisoryLockStoreProvider;
import dev.writerfence.store.lease.PgLeaseStoreProvider;
import dev.writerfence.store.rpc.LeaseRpcStoreProvider;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The backends register themselves ({@code META-INF/services}), and every way of naming one asks
 * the same registry: an unknown name is refused naming the value and the registered names.
 */
class BackendRegistryTest {

  @Test
  void coresThreeBackendsAreRegisteredByName() {
    assertThat(BackendRegistry.names()).containsExactly("lease", "advisory", "lease-rpc");
    assertThat(BackendRegistry.provider("lease")).isInstanceOf(PgLeaseStoreProvider.class);
    assertThat(BackendRegistry.provider("advisory")).isInstanceOf(AdvisoryLockStoreProvider.class);
    assertThat(BackendRegistry.provider("lease-rpc")).isInstanceOf(LeaseRpcStoreProvider.class);
    assertThat(SettingsCatalog.BACKEND.choices()).isEqualTo(BackendRegistry.names());
  }

  @Test
  void anUnknownBackendIsRefusedNamingTheValueAndTheRegisteredNames() {
    String expected = "writer-fence: backend 'redis' is not allowed: lease, advisory or lease-rpc";
    assertThatThrownBy(() -> BackendRegistry.provider("redis"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);

    WriterFenceConfiguration c = new WriterFenceConfiguration();
    c.setBackend("redis");
    assertThat(c.violations())
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.key()).isEqualTo("backend");
              assertThat(v.message()).isEqualTo(expected);
            });
    assertThatThrownBy(() -> c.createStore(new org.postgresql.ds.PGSimpleDataSource()))
        .hasMessage(expected);

    Properties p = new Properties();
    p.setProperty("writer-fence.datasource.url", "jdbc:postgresql://127.0.0.1:1/x");
    p.setProperty("writer-fence.backend", "redis");
    assertThatThrownBy(() -> WriterFenceSettings.fromProperties(p).check())
        .hasMessageContaining(expected);
  }

  @Test
  void theDefaultsPassEveryRule() {
    assertThat(new WriterFenceConfiguration().violations()).isEmpty();
    assertThat(new WriterFenceConfiguration().provider()).isInstanceOf(PgLeaseStoreProvider.class);
  }
}
