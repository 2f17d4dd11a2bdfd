package dev.writerfence.store.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.testing.PrefixedLeaseStore;
import dev.writerfence.testing.RecordingLeaseStore;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code writer-fence.backend=lease-rpc} builds a fence on an existing deployment's RPC pair, with
 * the names of the {@code lease-rpc.*} settings and without renewal (ADR 57). Nothing here
 * connects: the calls themselves are proved against a real deployment and the other languages'
 * clients in fault-suite's {@code LeaseRpcInteropTest}.
 */
class LeaseRpcSettingsTest {
  private static final String URL = "jdbc:postgresql://127.0.0.1:1/nowhere";

  private static WriterFenceSettings settings(String... pairs) {
    Properties p = new Properties();
    p.setProperty("writer-fence.backend", "lease-rpc");
    p.setProperty("writer-fence.datasource.url", URL);
    for (int i = 0; i < pairs.length; i += 2) {
      p.setProperty("writer-fence." + pairs[i], pairs[i + 1]);
    }
    return WriterFenceSettings.fromProperties(p);
  }

  private static PGSimpleDataSource nowhere() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(URL);
    return ds;
  }

  @Test
  void theDefaultsAreTheDeploymentsPairWithNoFenceNamePassed() {
    try (WriterFence fence = settings().buildFence(nowhere())) {
      LeaseRpcStore store = (LeaseRpcStore) FencedCalls.store(fence);
      assertThat(store.contract()).isEqualTo(LeaseRpcContract.defaults());
      assertThat(store.contract().fenceNameParameter()).isEmpty();
      assertThat(store.renewsLeases()).isFalse();
    }
  }

  @Test
  void everyNameCanBeSet() {
    WriterFenceSettings settings =
        settings(
            "lease-rpc.acquire-function", "fences.take",
            "lease-rpc.release-function", "fences.give_back",
            "lease-rpc.holder-token-parameter", "token",
            "lease-rpc.holder-parameter", "who",
            "lease-rpc.ttl-parameter", "seconds",
            "lease-rpc.fence-name-parameter", "p_fence_name");
    settings.check();
    try (WriterFence fence = settings.buildFence(nowhere())) {
      assertThat(((LeaseRpcStore) FencedCalls.store(fence)).contract())
          .isEqualTo(
              new LeaseRpcContract(
                  "fences.take",
                  "fences.give_back",
                  "token",
                  "who",
                  "seconds",
                  Optional.of("p_fence_name")));
    }
  }

  @Test
  void aNameThatIsNotAnIdentifierIsNamedAndRefused() {
    assertThatThrownBy(() -> settings("lease-rpc.acquire-function", "f(); drop table x").check())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease-rpc.acquire-function 'f(); drop table x' is not allowed");
    assertThatThrownBy(() -> settings("lease-rpc.ttl-parameter", "P-TTL").check())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease-rpc.ttl-parameter 'P-TTL' is not allowed");
  }

  @Test
  void twoParametersOfTheSameNameAreRefusedNamingBothSettings() {
    assertThatThrownBy(() -> settings("lease-rpc.fence-name-parameter", "p_holder").check())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "lease-rpc.holder-parameter and lease-rpc.fence-name-parameter are both 'p_holder'");
    assertThatThrownBy(() -> settings("lease-rpc.ttl-parameter", "p_holder_token").check())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "lease-rpc.holder-token-parameter and lease-rpc.ttl-parameter are both"
                + " 'p_holder_token'");
  }

  @Test
  void aReservedWordIsAFineName_theCallQuotesIt() {
    settings("lease-rpc.holder-token-parameter", "select", "lease-rpc.acquire-function", "order")
        .check();
  }

  @Test
  void aRenewIntervalIsRefused_theExistingPairCannotRenew() {
    assertThatThrownBy(() -> settings("renew-interval", "10s").check())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("renew-interval '10s' is not allowed with backend=lease-rpc: off");
    settings("renew-interval", "off").check();
  }

  @Test
  void aFenceOnTheStoreWithRenewalOnIsRefusedAtBuild() {
    LeaseRpcStore store =
        new LeaseRpcStore(nowhere(), LeaseRpcContract.defaults(), Duration.ofSeconds(5));
    assertThatThrownBy(() -> WriterFence.builder(store).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot renew a lease")
        .hasMessageContaining("withoutRenewal()");
    WriterFence.builder(store).withoutRenewal().build().close();
  }

  @Test
  void theTestKitsDecoratorsSayTheStoreCannotRenewToo() {
    LeaseRpcStore store =
        new LeaseRpcStore(nowhere(), LeaseRpcContract.defaults(), Duration.ofSeconds(5));
    assertThat(new PrefixedLeaseStore(store, "t-").renewsLeases()).isFalse();
    assertThat(new RecordingLeaseStore(store).renewsLeases()).isFalse();
    assertThatThrownBy(() -> WriterFence.builder(new RecordingLeaseStore(store)).build())
        .isInstanceOf(IllegalStateException.class);
  }
}
