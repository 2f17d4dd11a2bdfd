package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.context.HeldFences;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.OtherWriter;
import dev.writerfence.testing.RecordingLeaseStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The thread's held-fence stack: a hold ends with its fenced call even when the guarded code gave
 * the lease back early, and a nested call re-enters only a hold of the same exclusion domain (an
 * equal lease store, or one on the same database and schema), never one that merely shares the
 * fence name.
 */
class HeldFenceStackTest extends FenceTestSupport {
  private static final String OTHER_SCHEMA = "wf_other_domain";

  @BeforeAll
  static void installAnotherDomain() throws Exception {
    FenceSchema.defaults().schema(OTHER_SCHEMA).install(DB.dataSource());
  }

  @Test
  void earlyReleaseInsideACallLeavesNoStaleHoldAndTheNextCallIsBusy() throws Exception {
    WriterFence fence = fence();
    boolean freedEarly =
        fence.call(
            request("early"),
            () -> {
              boolean freed = fence.release(WriterFence.current(name).orElseThrow());
              assertThat(WriterFence.current(name)).as("a released lease is not held").isEmpty();
              return freed;
            });
    assertThat(freedEarly).isTrue();
    assertThat(HeldFences.holdsAny()).isFalse();
    assertThat(WriterFence.current(name)).isEmpty();

    FenceLease theirs =
        OtherWriter.tryAcquire(
                fence(), FenceRequest.builder(name).holderLabel("other-writer").ttl(TTL).build())
            .orElseThrow();
    AtomicInteger ran = new AtomicInteger();
    Throwable second = catchThrowable(() -> fence.call(request("again"), ran::incrementAndGet));

    assertThat(second).isInstanceOf(WriterFenceBusyException.class);
    assertThat(ran).as("the guarded code ran while another writer held the fence").hasValue(0);
    assertThat(status(fence).holderLabel()).isEqualTo("other-writer@" + HolderLabel.instance());
    assertThat(fence.release(theirs)).isTrue();
  }

  @Test
  void earlyReleaseInsideACallThenANestedCallAcquiresAnew() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = fence(store);
    long[] tokens =
        fence.call(
            request("outer"),
            () -> {
              FenceLease outer = WriterFence.current(name).orElseThrow();
              fence.release(outer);
              long inner =
                  fence.call(
                      request("inner"),
                      () -> fence.currentLease(name).orElseThrow().fencingToken());
              return new long[] {outer.fencingToken(), inner};
            });

    assertThat(tokens[1]).as("the nested call took a lease of its own").isGreaterThan(tokens[0]);
    assertThat(store.acquireTokens()).hasSize(2);
    assertThat(store.releaseTokens())
        .as("each lease released once")
        .hasSize(2)
        .doesNotHaveDuplicates();
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void earlyReleaseInsideProceedLeavesNoStaleHoldAndIsNotReleasedTwice() throws Throwable {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = fence(store);

    Object result =
        FencedCalls.proceed(
            fence,
            request("proceed"),
            String.class,
            () -> {
              fence.release(WriterFence.current(name).orElseThrow());
              return "done";
            });

    assertThat(result).isEqualTo("done");
    assertThat(HeldFences.holdsAny()).isFalse();
    assertThat(store.releaseTokens()).hasSize(1);
    FenceLease theirs =
        OtherWriter.tryAcquire(
                fence(), FenceRequest.builder(name).holderLabel("other-writer").ttl(TTL).build())
            .orElseThrow();
    assertThat(
            catchThrowable(
                () -> FencedCalls.proceed(fence, request("again"), String.class, () -> "ran")))
        .isInstanceOf(WriterFenceBusyException.class);
    assertThat(fence.release(theirs)).isTrue();
  }

  @Test
  void earlyReleaseInsideAnAsyncCallIsNotReleasedAgainWhenTheStageCompletes() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = fence(store);
    CompletableFuture<String> work = new CompletableFuture<>();

    CompletableFuture<String> fenced =
        fence.callAsync(
            request("async"),
            () -> {
              fence.release(WriterFence.current(name).orElseThrow());
              return work;
            });
    assertThat(HeldFences.holdsAny()).isFalse();
    work.complete("written");

    assertThat(fenced.get(5, TimeUnit.SECONDS)).isEqualTo("written");
    assertThat(store.releaseTokens()).hasSize(1);
  }

  @Test
  void nestedCallOfAnotherDomainWithTheSameNameAcquiresItsOwnLease() throws Exception {
    WriterFence outer = fence();
    WriterFence otherDomain = fence(DB.dataSource()).schema(OTHER_SCHEMA).build();
    WriterFence otherDomainHolder = fence(DB.dataSource()).schema(OTHER_SCHEMA).build();
    FenceLease theirs =
        OtherWriter.tryAcquire(
                otherDomainHolder,
                FenceRequest.builder(name).holderLabel("other-domain-holder").ttl(TTL).build())
            .orElseThrow();
    AtomicInteger ran = new AtomicInteger();

    Throwable nested =
        catchThrowable(
            () ->
                outer.call(
                    request("outer"),
                    () -> otherDomain.call(request("nested"), ran::incrementAndGet)));

    assertThat(nested).isInstanceOf(WriterFenceBusyException.class);
    assertThat(ran)
        .as("the nested guarded code ran while another holder had its fence")
        .hasValue(0);
    assertThat(sql.state(name)).as("the outer lease was released").isEqualTo("free");
    assertThat(otherDomain.release(theirs)).isTrue();
  }

  @Test
  void nestedCallOfAnotherDomainHoldsBothLeasesAndCurrentLeaseTellsThemApart() throws Exception {
    WriterFence outer = fence();
    WriterFence otherDomain = fence(DB.dataSource()).schema(OTHER_SCHEMA).build();

    outer.call(
        request("outer"),
        () -> {
          FenceLease outerLease = outer.currentLease(name).orElseThrow();
          return otherDomain.call(
              request("nested"),
              () -> {
                FenceLease nestedLease = otherDomain.currentLease(name).orElseThrow();
                assertThat(nestedLease).isNotSameAs(outerLease);
                assertThat(outer.currentLease(name)).containsSame(outerLease);
                assertThat(WriterFence.current(name))
                    .as("innermost, any domain")
                    .containsSame(nestedLease);
                assertThat(otherDomain.status(name).orElseThrow().state()).isEqualTo("held");
                assertThat(sql.state(name)).isEqualTo("held");
                return null;
              });
        });
    assertThat(outer.currentLease(name)).isEmpty();
    assertThat(otherDomain.status(name).orElseThrow().state()).isEqualTo("free");
  }

  @Test
  void twoFencesOnTheSameDataSourceAndSchemaAreOneDomain() throws Exception {
    DataSource dataSource = DB.dataSource();
    WriterFence first = fence(dataSource).build();
    WriterFence second = fence(dataSource).queryTimeout(Duration.ofSeconds(3)).build();

    long[] tokens =
        first.call(
            request("first"),
            () ->
                second.call(
                    request("second"),
                    () -> {
                      assertThat(second.currentLease(name))
                          .containsSame(first.currentLease(name).orElseThrow());
                      return new long[] {
                        first.currentLease(name).orElseThrow().fencingToken(),
                        sql.fencingToken(name)
                      };
                    }));

    assertThat(tokens[0]).isEqualTo(FencingTokens.first(1)).isEqualTo(tokens[1]);
    assertThat(sql.state(name)).isEqualTo("free");
    assertThat(FencingTokens.counter(sql.fencingToken(name)))
        .as("one acquire in all")
        .isEqualTo(1L);
  }

  @Test
  void fencesOnOtherDataSourceObjectsOfTheSameDatabaseAndSchemaAreOneDomain() throws Exception {
    WriterFence first = fence(DB.dataSource()).build();
    WriterFence second = fence(DB.dataSource()).build();
    assertThat(first.store).isNotEqualTo(second.store);

    long inner =
        first.call(
            request("first"), () -> second.call(request("second"), () -> sql.fencingToken(name)));

    assertThat(FencingTokens.counter(inner)).as("one acquire in all").isEqualTo(1L);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void leaseStoresNameTheirDomainByDatabaseAndSchema() {
    PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
    PgLeaseStore sameRows = new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
    PgLeaseStore otherSchema =
        new PgLeaseStore(DB.dataSource(), OTHER_SCHEMA, Duration.ofSeconds(10));

    assertThat(store.exclusionDomain()).isPresent().isEqualTo(sameRows.exclusionDomain());
    assertThat(store.exclusionDomain().orElseThrow()).endsWith("/postgres/" + SCHEMA);
    assertThat(otherSchema.exclusionDomain()).isPresent().isNotEqualTo(store.exclusionDomain());
  }

  @Test
  void aRoleWithoutPrivilegesNamesTheSameDomain() {
    DB.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'wf_plain') THEN"
            + " CREATE ROLE wf_plain LOGIN; END IF; END $$");
    PgLeaseStore owner = new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
    PgLeaseStore plain =
        new PgLeaseStore(DB.dataSource("wf_plain", null), SCHEMA, Duration.ofSeconds(10));

    assertThat(plain.exclusionDomain()).isPresent().isEqualTo(owner.exclusionDomain());
  }

  @Test
  void leaseStoresAreEqualOnDataSourceIdentityAndSchema() {
    DataSource dataSource = DB.dataSource();
    PgLeaseStore store = new PgLeaseStore(dataSource, SCHEMA, Duration.ofSeconds(10));
    PgLeaseStore sameDomain = new PgLeaseStore(dataSource, SCHEMA, Duration.ofSeconds(2));

    assertThat(store).isEqualTo(sameDomain).hasSameHashCodeAs(sameDomain);
    assertThat(store)
        .isNotEqualTo(new PgLeaseStore(dataSource, OTHER_SCHEMA, Duration.ofSeconds(10)));
    assertThat(store)
        .as("another DataSource object is another domain, even for the same database")
        .isNotEqualTo(new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10)));
  }
}
