package dev.writerfence.config;

import dev.writerfence.WriterFence;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/** How a {@link WriterFenceConfiguration} becomes a store and a fence's builder. */
final class FenceAssembly {
  private FenceAssembly() {}

  static WriterFence.Builder builder(WriterFenceConfiguration c, LeaseStore store) {
    WriterFence.Builder b = WriterFence.builder(Objects.requireNonNull(store, "store"));
    b.schema(c.getSchema().getName());
    if (c.getHolder() != null) {
      b.defaultHolderLabel(c.getHolder());
    }
    b.defaultTtl(c.getTtl());
    if (store.renewsLeases()) {
      c.applyRenewInterval(b);
    } else {
      // A store that cannot renew (lease-rpc, ADR 57): its provider refused a renew interval.
      b.withoutRenewal();
    }
    c.applyQueue(b);
    b.queryTimeout(c.getQueryTimeout());
    b.retryPolicy(c.busyRetryPolicy());
    return b;
  }

  static void renewInterval(WriterFence.Builder b, Duration interval) {
    if (interval.isZero()) {
      b.withoutRenewal();
    } else {
      b.renewInterval(interval);
    }
  }

  /**
   * @param dataSource the store's connections, or {@code null} while only checking
   */
  static StoreSettings storeSettings(WriterFenceConfiguration c, DataSource dataSource) {
    return new StoreSettings() {
      @Override
      public DataSource dataSource() {
        if (dataSource == null) {
          throw new IllegalStateException(
              "writer-fence: a backend's check may not ask for the DataSource");
        }
        return dataSource;
      }

      @Override
      public String schema() {
        return c.getSchema().getName();
      }

      @Override
      public Duration queryTimeout() {
        return c.getQueryTimeout();
      }

      @Override
      public Optional<Duration> renewInterval() {
        return c.renewIntervalDuration();
      }

      @Override
      public Optional<String> text(String key) {
        return SettingBindings.text(c, key);
      }
    };
  }
}
