package dev.writerfence.faults.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.rpc.LeaseRpcContract;
import dev.writerfence.store.rpc.LeaseRpcStore;
import dev.writerfence.testing.LogCapture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code LeaseRpcStore} on the deployment's own pair (the fixture of {@link Deployment#EXISTING}):
 * what reaches the row, what busy and release answer, and what happens past the TTL with no renewal
 * (ADR 57). Each test but the first passes its own fence name through {@code p_fence_name}, the
 * deployment's test-isolation seam, so the rows do not meet.
 */
class LeaseRpcStoreTest {
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(5);

  @BeforeAll
  static void deployments() throws Exception {
    Deployment.ready();
  }

  private static LeaseRpcStore store(Optional<String> fenceNameParameter) {
    return new LeaseRpcStore(
        Deployment.EXISTING.db().dataSource(),
        LeaseRpcContract.defaults().withFenceNameParameter(fenceNameParameter),
        QUERY_TIMEOUT);
  }

  private static LeaseRpcStore isolated() {
    return store(Optional.of("p_fence_name"));
  }

  /** The row as its owner sees it: holder token, holder, TTL in seconds; empty when absent. */
  private static Optional<Object[]> row(String fenceName) throws Exception {
    try (Connection c = Deployment.EXISTING.owner().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT holder_token, holder, extract(epoch FROM expires_at - acquired_at)::int"
                    + " FROM public.corpus_writer_fence_lease WHERE fence_name = ?")) {
      ps.setString(1, fenceName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(new Object[] {rs.getObject(1), rs.getString(2), rs.getInt(3)})
            : Optional.empty();
      }
    }
  }

  @Test
  void withoutAFenceNameParameterEveryNameIsTheServersDefaultRow() throws Exception {
    LeaseRpcStore store = store(Optional.empty());
    UUID token = UUID.randomUUID();
    StoreLease lease =
        store.acquire("any-java-name", token, "java@host:1", Duration.ofSeconds(30)).orElseThrow();
    try {
      assertThat(row(Deployment.ROW)).get().satisfies(r -> assertThat(r[0]).isEqualTo(token));
      assertThat(row("any-java-name")).isEmpty();
      assertThat(
              store.acquire("another-java-name", UUID.randomUUID(), null, Duration.ofSeconds(30)))
          .as("another Java name is the same row")
          .isEmpty();
    } finally {
      assertThat(lease.release()).isTrue();
    }
  }

  @Test
  void theLabelAndTtlReachTheRow_andNoLabelLeavesTheServersDefault() throws Exception {
    LeaseRpcStore store = isolated();
    StoreLease labelled =
        store
            .acquire("rpc-label", UUID.randomUUID(), "java-upload", Duration.ofSeconds(42))
            .orElseThrow();
    assertThat(row("rpc-label"))
        .get()
        .satisfies(
            r -> {
              assertThat(r[1]).isEqualTo("java-upload");
              assertThat(r[2]).isEqualTo(42);
            });
    assertThat(labelled.fencingToken()).isZero();
    assertThat(labelled.release()).isTrue();

    StoreLease unlabelled =
        store.acquire("rpc-label", UUID.randomUUID(), null, Duration.ofSeconds(5)).orElseThrow();
    assertThat(row("rpc-label")).get().satisfies(r -> assertThat(r[1]).isEqualTo("unknown"));
    assertThat(unlabelled.release()).isTrue();
  }

  @Test
  void busyIsAnEmptyAnswer_andReleaseFreesOnlyTheHoldersOwnLease() throws Exception {
    LeaseRpcStore store = isolated();
    UUID first = UUID.randomUUID();
    StoreLease held = store.acquire("rpc-busy", first, "a", Duration.ofSeconds(30)).orElseThrow();

    assertThat(store.acquire("rpc-busy", UUID.randomUUID(), "b", Duration.ofSeconds(30))).isEmpty();
    assertThat(store.acquire("rpc-busy", first, "a", Duration.ofSeconds(30)))
        .as("the pair lets no token, its own neither, re-take a live row")
        .isEmpty();

    assertThat(held.release()).isTrue();
    assertThat(held.release()).as("a second release").isFalse();
    assertThat(row("rpc-busy")).get().satisfies(r -> assertThat(r[0]).isNull());
    StoreLease next =
        store.acquire("rpc-busy", UUID.randomUUID(), "b", Duration.ofSeconds(30)).orElseThrow();
    assertThat(held.release()).as("release of the old holder while another holds").isFalse();
    assertThat(store.acquire("rpc-busy", UUID.randomUUID(), "c", Duration.ofSeconds(30)))
        .as("still held by the next holder")
        .isEmpty();
    assertThat(next.release()).isTrue();
  }

  @Test
  void aHoldLongerThanItsTtlIsLost_andTheRowGoesToTheNextWriter() throws Exception {
    LeaseRpcStore store = isolated();
    try (WriterFence fence = WriterFence.builder(store).withoutRenewal().build();
        LogCapture log = LogCapture.start()) {
      FenceLease lease =
          fence
              .tryAcquire(FenceRequest.builder("rpc-ttl").ttl(Duration.ofSeconds(1)).build())
              .orElseThrow();
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> log.text().contains("lost the lease on fence 'rpc-ttl'"));
      assertThat(log.text())
          .as("one wording for a lease without a token")
          .contains("lost the lease on fence 'rpc-ttl' (no fencing token, holder")
          .doesNotContain("fencing token 0");
      assertThatThrownBy(lease::checkValid)
          .isInstanceOf(FenceLostException.class)
          .hasMessageContaining("no fencing token");
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  store
                      .acquire("rpc-ttl", UUID.randomUUID(), "next", Duration.ofSeconds(5))
                      .map(StoreLease::release)
                      .orElse(false));
      fence.release(lease);
    }
  }

  @Test
  void aMissingFunctionIsUnavailableNamingItAndTheSettings() {
    LeaseRpcStore store =
        new LeaseRpcStore(
            Deployment.EXISTING.db().dataSource(),
            new LeaseRpcContract(
                "public.no_such_acquire",
                LeaseRpcContract.DEFAULT_RELEASE_FUNCTION,
                LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER,
                LeaseRpcContract.DEFAULT_HOLDER_PARAMETER,
                LeaseRpcContract.DEFAULT_TTL_PARAMETER,
                Optional.of("p_fence_name")),
            QUERY_TIMEOUT);
    assertThatThrownBy(
            () -> store.acquire("rpc-missing", UUID.randomUUID(), "a", Duration.ofSeconds(5)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining(
            "public.no_such_acquire (lease-rpc.acquire-function) is not installed")
        .hasMessageContaining("lease-rpc.* settings");
  }

  private static void asOwner(String... statements) throws Exception {
    try (Connection c = Deployment.EXISTING.owner().getConnection();
        Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }

  private static LeaseRpcStore withNames(
      String acquire, String release, String token, String holder, Optional<String> fence) {
    return new LeaseRpcStore(
        Deployment.EXISTING.db().dataSource(),
        new LeaseRpcContract(
            acquire, release, token, holder, LeaseRpcContract.DEFAULT_TTL_PARAMETER, fence),
        QUERY_TIMEOUT);
  }

  @Test
  void aMisnamedReleaseFunctionFailsBeforeAnythingIsAcquired() throws Exception {
    LeaseRpcStore store =
        withNames(
            LeaseRpcContract.DEFAULT_ACQUIRE_FUNCTION,
            "public.corpus_writer_fence_lease_relase",
            LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER,
            LeaseRpcContract.DEFAULT_HOLDER_PARAMETER,
            Optional.of("p_fence_name"));
    for (int call = 0; call < 2; call++) {
      assertThatThrownBy(
              () -> store.acquire("rpc-misnamed", UUID.randomUUID(), "a", Duration.ofSeconds(60)))
          .isInstanceOf(WriterFenceUnavailableException.class)
          .hasMessageContaining(
              "public.corpus_writer_fence_lease_relase (lease-rpc.release-function) is not"
                  + " installed")
          .hasMessageContaining("Nothing was acquired");
    }
    assertThat(row("rpc-misnamed")).isEmpty();
  }

  @Test
  void aMisnamedParameterIsNamedWithItsSettingBeforeAnythingIsAcquired() throws Exception {
    LeaseRpcStore store =
        withNames(
            LeaseRpcContract.DEFAULT_ACQUIRE_FUNCTION,
            LeaseRpcContract.DEFAULT_RELEASE_FUNCTION,
            LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER,
            LeaseRpcContract.DEFAULT_HOLDER_PARAMETER,
            Optional.of("p_fence"));
    assertThatThrownBy(
            () -> store.acquire("rpc-misnamed-p", UUID.randomUUID(), "a", Duration.ofSeconds(60)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining(
            "public.corpus_writer_fence_lease_acquire (lease-rpc.acquire-function)")
        .hasMessageContaining("no parameter 'p_fence' (lease-rpc.fence-name-parameter)");
    assertThat(row("rpc-misnamed-p")).isEmpty();
  }

  @Test
  void aParameterWithoutADefaultThatIsNotAlwaysPassedIsRefused() throws Exception {
    asOwner(
        "CREATE OR REPLACE FUNCTION public.rpc_strict_release(p_holder_token uuid, p_holder"
            + " text, p_mode text) RETURNS boolean LANGUAGE sql AS 'SELECT false'");
    LeaseRpcStore store =
        withNames(
            LeaseRpcContract.DEFAULT_ACQUIRE_FUNCTION,
            "public.rpc_strict_release",
            LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER,
            LeaseRpcContract.DEFAULT_HOLDER_PARAMETER,
            Optional.empty());
    assertThatThrownBy(
            () -> store.acquire("rpc-strict", UUID.randomUUID(), "a", Duration.ofSeconds(60)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("(lease-rpc.release-function)")
        .hasMessageContaining("parameter 'p_holder' (lease-rpc.holder-parameter) has no default");
  }

  @Test
  void reservedWordsAreFineNames_theCallQuotesThem() throws Exception {
    asOwner(
        "CREATE OR REPLACE FUNCTION public.\"order\"(\"select\" uuid, \"from\" text DEFAULT"
            + " NULL, p_ttl_seconds integer DEFAULT 60, p_fence_name text DEFAULT NULL)"
            + " RETURNS boolean LANGUAGE sql AS $$ SELECT"
            + " public.corpus_writer_fence_lease_acquire(\"select\", coalesce(\"from\","
            + " 'unknown'), p_ttl_seconds, p_fence_name) $$",
        "CREATE OR REPLACE FUNCTION public.\"group\"(\"select\" uuid, \"from\" text DEFAULT"
            + " NULL, p_fence_name text DEFAULT NULL) RETURNS boolean LANGUAGE sql AS $$ SELECT"
            + " public.corpus_writer_fence_lease_release(\"select\", coalesce(\"from\","
            + " 'unknown'), p_fence_name) $$");
    LeaseRpcStore store =
        withNames("public.order", "public.group", "select", "from", Optional.of("p_fence_name"));
    StoreLease lease =
        store.acquire("rpc-reserved", UUID.randomUUID(), "a", Duration.ofSeconds(60)).orElseThrow();
    assertThat(row("rpc-reserved")).get().satisfies(r -> assertThat(r[1]).isEqualTo("a"));
    assertThat(lease.release()).isTrue();
  }
}
