package dev.writerfence.faults.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.InstalledContract;
import dev.writerfence.schema.LeaseRpcCompatibility;
import dev.writerfence.testing.EmbeddedDatabase;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Java writers and the TypeScript and Python legs of an existing lease-RPC pair exclude each other
 * both ways (issue 16, ADR 57), with the legs' real clients (npm {@code pg}, asyncpg) in processes
 * of their own:
 *
 * <ul>
 *   <li>{@link Deployment#EXISTING}: the deployment's own table and functions as its team runs them
 *       (a fixture, {@code lease-rpc/existing-deployment.sql}); Java joins through {@code
 *       backend=lease-rpc}.
 *   <li>{@link Deployment#REPOINTED}: the same function names installed over writer-fence's own
 *       contract by the optional compatibility migration; the legs' calls are unchanged, Java uses
 *       the lease backend.
 * </ul>
 *
 * <p>The legs call with the holder token and label only, as production does: the row is the
 * server's default fence name on both sides.
 */
class LeaseRpcInteropTest {
  private static final String ROW = Deployment.ROW;
  private static final String ROLE = Deployment.ROLE;
  private static final Duration JAVA_TTL = Deployment.JAVA_TTL;
  private static final int ROUNDS = 6;

  /** Every function of the pair's names, as its definition: what a refused install must keep. */
  private static final String PAIR_DEFINITIONS =
      "SELECT string_agg(pg_get_functiondef(p.oid), E'\\n' ORDER BY p.oid) FROM pg_proc p"
          + " WHERE p.proname LIKE 'corpus\\_writer\\_fence\\_lease\\_%'";

  @BeforeAll
  static void deployments() throws Exception {
    Deployment.ready();
  }

  static List<Arguments> deploymentsAndLegs() {
    List<Arguments> all = new ArrayList<>();
    for (Deployment d : Deployment.values()) {
      for (Leg leg : Leg.values()) {
        all.add(Arguments.of(d, leg));
      }
    }
    return all;
  }

  private static FenceRequest once(String holder) {
    return FenceRequest.builder(ROW).holderLabel(holder).ttl(JAVA_TTL).build();
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("deploymentsAndLegs")
  void aLegHoldingTheRowKeepsJavaOut_andAJavaHoldKeepsTheLegOut(Deployment d, Leg leg)
      throws Exception {
    leg.require();
    Database db = d.db();
    try (WriterFence fence = d.javaFence()) {
      Leg.Running holder = leg.hold(db, leg + "-holder");
      assertThat(fence.tryAcquire(once("java"))).as("Java while the %s leg holds", leg).isEmpty();
      if (d == Deployment.REPOINTED) {
        LeaseStatus row = FencedCalls.store(fence).status(ROW).orElseThrow();
        assertThat(row.holderLabel()).as("the row the leg took").isEqualTo(leg + "-holder");
        assertThat(row.state()).isEqualTo("held");
      }
      holder.releaseHold();

      FenceLease lease = fence.tryAcquire(once("java")).orElseThrow();
      try {
        assertThat(leg.start("try", db, leg + "-trier").finish())
            .as("the %s leg while Java holds", leg)
            .isEqualTo("busy");
      } finally {
        assertThat(fence.release(lease)).isTrue();
      }
      assertThat(leg.start("try", db, leg + "-trier").finish()).isEqualTo("acquired");
    }
  }

  /** A writer as issue 16 rolls them out: an annotated method, run through the advice's entry. */
  static final class Uploads {
    final AtomicInteger runs = new AtomicInteger();

    @WriterFenced(
        value = Deployment.ROW,
        holder = "java-upload",
        retryMaxAttempts = 3,
        retryInitialIntervalMillis = 20,
        retryMaxWaitMillis = 300)
    String upload(Callable<String> during) throws Exception {
      runs.incrementAndGet();
      return during.call();
    }

    /** What the AspectJ aspect, the Spring interceptor and the agent's advice all call. */
    String fenced(WriterFence fence, Callable<String> during) throws Throwable {
      Method method = Uploads.class.getDeclaredMethod("upload", Callable.class);
      return (String)
          FencedMethods.proceed(fence, method, new Object[] {during}, () -> upload(during));
    }
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("deploymentsAndLegs")
  void aWriterFencedMethodIsBusyWhileALegHolds_andKeepsTheLegOutWhileItRuns(Deployment d, Leg leg)
      throws Throwable {
    leg.require();
    Database db = d.db();
    Uploads uploads = new Uploads();
    try (WriterFence fence = d.javaFence()) {
      Leg.Running holder = leg.hold(db, leg + "-holder");
      assertThatThrownBy(() -> uploads.fenced(fence, () -> "ran"))
          .isInstanceOf(WriterFenceBusyException.class);
      assertThat(uploads.runs).as("the method never ran while busy").hasValue(0);
      holder.releaseHold();

      String legDuringTheCall =
          uploads.fenced(fence, () -> leg.start("try", db, leg + "-trier").finish());
      assertThat(legDuringTheCall).as("the %s leg during the fenced call", leg).isEqualTo("busy");
      assertThat(leg.start("try", db, leg + "-trier").finish()).isEqualTo("acquired");
    }
  }

  @Test
  void theExistingPairMintsNoFencingToken_andTheLeaseSaysSo() throws Exception {
    try (WriterFence fence = Deployment.EXISTING.javaFence()) {
      fence.runWithLease(
          once("java"),
          lease -> {
            assertThat(lease.hasFencingToken()).isFalse();
            assertThatThrownBy(lease::fencingToken)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("fence '" + ROW + "'")
                .hasMessageContaining("cannot mint fencing tokens")
                .hasMessageContaining("backend=lease");
            assertThatThrownBy(() -> WriterFence.current(ROW).orElseThrow().fencingToken())
                .isInstanceOf(UnsupportedOperationException.class);
          });
    }
    try (WriterFence fence = Deployment.REPOINTED.javaFence()) {
      fence.runWithLease(once("java"), lease -> assertThat(lease.fencingToken()).isPositive());
    }
  }

  @Test
  void theCompatibilityFunctionsLeaveWriterFencesContractAsItWas() throws Exception {
    DataSource owner = Deployment.REPOINTED.owner();
    FenceSchema schema = FenceSchema.defaults().grantTo(ROLE);
    try (Connection c = owner.getConnection()) {
      assertThat(InstalledContract.inspect(c, schema.schemaName()).differences()).isEmpty();
    }
    schema.install(owner); // a later install or upgrade is not refused
    new LeaseRpcCompatibility(schema, ROW).install(owner); // and the functions re-install in place
    try (Connection c = owner.getConnection()) {
      assertThat(InstalledContract.inspect(c, schema.schemaName()).differences()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(Leg.class)
  void installingThePairOverTheDeploymentsOwnIsRefused_andChangesNothing(Leg leg) throws Exception {
    leg.require();
    DataSource owner = Deployment.EXISTING.owner();
    String before = value(owner, PAIR_DEFINITIONS);
    Leg.Running holder = leg.hold(Deployment.EXISTING.db(), leg + "-holder");
    try {
      FenceSchema schema = FenceSchema.defaults().grantTo(ROLE);
      assertThatThrownBy(() -> new LeaseRpcCompatibility(schema, "another_row").install(owner))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining(
              "public.corpus_writer_fence_lease_acquire(p_holder_token uuid, p_holder text,"
                  + " p_ttl_seconds integer, p_fence_name text)")
          .hasMessageContaining(
              "public.corpus_writer_fence_lease_release(p_holder_token uuid, p_holder text,"
                  + " p_fence_name text)")
          .hasMessageContaining("nothing was changed")
          .hasMessageContaining("drop or rename")
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("55000"));
      assertThat(value(owner, PAIR_DEFINITIONS)).isEqualTo(before);
      assertThat(leg.start("try", Deployment.EXISTING.db(), leg + "-trier").finish())
          .as("the %s leg while another leg holds the deployment's row", leg)
          .isEqualTo("busy");
    } finally {
      holder.releaseHold(); // the deployment's own release still answers true
    }
  }

  @Test
  void theSqlFileAsAPsqlUserRunsItRefusesTheDeploymentsOwnPairToo() throws Exception {
    DataSource owner = Deployment.EXISTING.owner();
    String before = value(owner, PAIR_DEFINITIONS);
    String sql = new LeaseRpcCompatibility(FenceSchema.defaults().grantTo(ROLE), ROW).sql();
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      assertThatThrownBy(() -> st.execute(sql))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("writer-fence did not install")
          .hasMessageContaining("public.corpus_writer_fence_lease_release(p_holder_token uuid,")
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("55000"));
    }
    assertThat(value(owner, PAIR_DEFINITIONS)).isEqualTo(before);
  }

  @Test
  void aPairOfAnotherSignatureIsRefusedToo_noOverloadIsAdded() throws Exception {
    EmbeddedDatabase pg = EmbeddedDatabase.get();
    pg.execute("DROP DATABASE IF EXISTS lease_rpc_legacy", "CREATE DATABASE lease_rpc_legacy");
    DataSource owner = pg.dataSource("lease_rpc_legacy", "postgres", null);
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE FUNCTION public.corpus_writer_fence_lease_acquire(p_holder_token uuid)"
              + " RETURNS boolean LANGUAGE sql AS 'SELECT true'");
    }
    FenceSchema schema = FenceSchema.defaults().grantTo(ROLE);
    assertThatThrownBy(() -> new LeaseRpcCompatibility(schema, ROW).install(owner))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("public.corpus_writer_fence_lease_acquire(p_holder_token uuid)");
    assertThat(
            value(
                owner,
                "SELECT count(*)::text FROM pg_proc"
                    + " WHERE proname LIKE 'corpus\\_writer\\_fence\\_lease\\_%'"))
        .as("no overload added")
        .isEqualTo("1");
    assertThat(
            value(
                owner, "SELECT public.corpus_writer_fence_lease_acquire(gen_random_uuid())::text"))
        .isEqualTo("true");
  }

  @Test
  void reinstallingWriterFencesOwnPairSaysWhatItReplaces() throws Exception {
    DataSource owner = Deployment.REPOINTED.owner();
    FenceSchema schema = FenceSchema.defaults().grantTo(ROLE);
    try {
      assertThat(new LeaseRpcCompatibility(schema, "another_row").install(owner)).contains(ROW);
    } finally {
      assertThat(new LeaseRpcCompatibility(schema, ROW).install(owner)).contains("another_row");
    }
  }

  private static String value(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Deployment.class)
  void javaNodeAndPythonWritersTakingTurnsNeverOverlap(Deployment d, @TempDir Path dir)
      throws Exception {
    for (Leg leg : Leg.values()) {
      leg.require();
    }
    Database db = d.db();
    SectionRecord record = new SectionRecord(dir.resolve("record.txt"));
    Files.createFile(record.file());
    String holdMs = "15";
    List<Leg.Running> legs = new ArrayList<>();
    for (Leg leg : Leg.values()) {
      for (int i = 1; i <= 2; i++) {
        legs.add(
            leg.start(
                "rounds",
                db,
                leg + "-" + i,
                "--rounds",
                String.valueOf(ROUNDS),
                "--hold-ms",
                holdMs,
                "--record",
                record.file().toString()));
      }
    }
    BusyRetryPolicy patient =
        BusyRetryPolicy.defaults()
            .withMaxAttempts(100_000)
            .withInitialInterval(Duration.ofMillis(5))
            .withMaxInterval(Duration.ofMillis(40))
            .withMaxWait(Duration.ofSeconds(150));
    ExecutorService java = Executors.newFixedThreadPool(2);
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 1; w <= 2; w++) {
      String holder = "JAVA-" + w;
      writers.add(
          java.submit(
              () -> {
                try (WriterFence fence = d.javaFence()) {
                  FenceRequest request =
                      FenceRequest.builder(ROW)
                          .holderLabel(holder)
                          .ttl(JAVA_TTL)
                          .retryPolicy(patient)
                          .build();
                  for (int round = 0; round < ROUNDS; round++) {
                    int r = round;
                    fence.run(
                        request,
                        () -> {
                          record.append("start", holder, r);
                          Thread.sleep(Long.parseLong(holdMs));
                          record.append("end", holder, r);
                        });
                  }
                }
                return null;
              }));
    }
    for (Leg.Running leg : legs) {
      assertThat(leg.finish()).isEqualTo("done");
    }
    for (Future<?> writer : writers) {
      writer.get(180, TimeUnit.SECONDS);
    }
    java.shutdown();

    Map<String, Integer> sections = record.sectionsPerHolder();
    assertThat(sections)
        .containsOnlyKeys("JAVA-1", "JAVA-2", "NODE-1", "NODE-2", "PYTHON-1", "PYTHON-2")
        .allSatisfy((holder, n) -> assertThat(n).as(holder).isEqualTo(ROUNDS));
  }
}
