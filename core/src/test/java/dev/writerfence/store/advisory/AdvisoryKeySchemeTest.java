package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.holdersOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.testing.FenceNames;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The advisory backend's key scheme and a call's advisory key text (ADR 58): the lock taken is the
 * one a writer outside writer-fence takes for the same text, the fence name stays the identity, and
 * a bad scheme or template is refused naming it.
 */
class AdvisoryKeySchemeTest {
  /** {@code vibey.integrate:proj:42}, as Python's hashlib computes it. */
  private static final long PROJ_42 = -5474636962828788384L;

  /** A method fenced the way a job worker defers: skip when busy, one attempt. */
  public static class Integrator {
    final AtomicInteger runs = new AtomicInteger();
    final List<Long> heldKeysSeen = new ArrayList<>();

    @WriterFenced(
        value = "integrate-{0}-{1}",
        advisoryKey = "vibey.integrate:{0}:{1}",
        onBusy = OnBusy.SKIP,
        retryMaxAttempts = 1)
    public String integrate(String project, int cycle) {
      runs.incrementAndGet();
      heldKeysSeen.add(
          holdersOf(AdvisoryKeys.keyOfText("vibey.integrate:" + project + ":" + cycle)));
      return "integrated";
    }
  }

  @Test
  void aKeyTextHashesWithoutThePrefixAndTheDefaultSchemeIsThePlainKey() {
    assertThat(AdvisoryKeys.keyOfText("vibey.integrate:proj:42")).isEqualTo(PROJ_42);
    assertThat(
            AdvisoryKeys.keyOfText(AdvisoryKeys.keyText(AdvisoryKeys.DEFAULT_KEY_SCHEME, "corpus")))
        .isEqualTo(AdvisoryKeys.CORPUS_KEY);
    assertThat(AdvisoryKeys.keyText("a{{b}}:{name}:{name}", "n")).isEqualTo("a{b}:n:n");
  }

  @Test
  void aBadKeySchemeIsRefusedNamingItAndWhatIsAllowed() {
    for (String bad : new String[] {"vibey.fence", "vibey:{0}", "vibey:{name", "v}:{name}", ""}) {
      assertThatThrownBy(() -> AdvisoryKeys.checkKeyScheme(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "writer-fence: advisory.key-scheme '" + bad + "' is not allowed: text with {name}");
    }
    assertThatThrownBy(() -> AdvisoryLockStore.builder(DB.dataSource()).keyScheme(null))
        .hasMessageContaining("advisory.key-scheme null is not allowed");
    assertThatThrownBy(() -> AdvisoryKeys.keyOfText("a\u200Bb"))
        .hasMessage(
            "writer-fence: advisory key text 'a\\u200Bb' is not allowed: 1 to 1000 characters, no"
                + " control or format characters");
    assertThatThrownBy(() -> FenceRequest.builder("n").advisoryKey("").build())
        .hasMessageContaining("advisory key text '' is not allowed");
  }

  @Test
  void theSettingsKeySchemeDecidesWhichKeyAFenceLocks() throws Exception {
    String name = FenceNames.random("key-scheme");
    Properties p = new Properties();
    p.setProperty("writer-fence.backend", "advisory");
    p.setProperty("writer-fence.advisory.key-scheme", "vibey.fence:{name}");
    p.setProperty("writer-fence.datasource.url", DB.jdbcUrl());
    p.setProperty("writer-fence.datasource.username", "postgres");
    WriterFenceSettings settings = WriterFenceSettings.fromProperties(p);
    DataSource own = settings.dataSource();
    try (WriterFence fence = settings.buildFence(own)) {
      AdvisoryLockStore store = (AdvisoryLockStore) FencedCalls.store(fence);
      assertThat(store.keyScheme()).isEqualTo("vibey.fence:{name}");
      long schemed = AdvisoryKeys.keyOfText("vibey.fence:" + name);

      long[] held =
          fence.call(
              FenceRequest.of(name),
              () -> new long[] {holdersOf(schemed), holdersOf(AdvisoryKeys.keyOf(name))});

      assertThat(held).containsExactly(1, 0);
      assertThat(holdersOf(schemed)).isZero();
      // Another session holding the schemed key makes the fence busy.
      try (Connection other = DB.dataSource().getConnection()) {
        assertThat(tryLock(other, schemed)).isTrue();
        assertThatThrownBy(
                () ->
                    fence.call(
                        FenceRequest.builder(name).retryPolicy(oneAttempt()).build(), () -> 1))
            .isInstanceOf(WriterFenceBusyException.class);
        assertThat(store.status(name)).map(LeaseStatus::state).contains("held");
        unlock(other, schemed);
      }
    } finally {
      ((AutoCloseable) own).close();
    }
    assertThatThrownBy(
            () -> {
              Properties bad = new Properties();
              bad.setProperty("writer-fence.advisory.key-scheme", "vibey:{project}");
              WriterFenceSettings.fromProperties(bad).get(SettingsCatalog.ADVISORY_KEY_SCHEME);
            })
        .hasMessageContaining("advisory.key-scheme 'vibey:{project}' is not allowed");
  }

  @Test
  void aRequestsAdvisoryKeyIsTheLockAndTheFenceNameStaysItsIdentity() throws Exception {
    String name = FenceNames.random("integrate");
    try (AdvisoryLockStore store = AdvisoryLockStore.builder(DB.dataSource()).build();
        WriterFence fence = WriterFence.builder(store).build()) {
      FenceRequest request =
          FenceRequest.builder(name)
              .advisoryKey("vibey.integrate:proj:42")
              .retryPolicy(oneAttempt())
              .build();
      String[] seen = new String[1];

      long held =
          fence.call(
              request,
              () -> {
                seen[0] = WriterFence.current(name).orElseThrow().fenceName();
                assertThat(store.status(name)).map(LeaseStatus::fenceName).contains(name);
                return holdersOf(PROJ_42);
              });

      assertThat(held).isEqualTo(1);
      assertThat(seen[0]).isEqualTo(name);
      assertThat(holdersOf(PROJ_42)).isZero();
      try (Connection python = DB.dataSource().getConnection()) {
        assertThat(tryLock(python, PROJ_42)).isTrue();
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> fence.call(request, ran::incrementAndGet))
            .isInstanceOf(WriterFenceBusyException.class)
            .hasMessageContaining(name);
        assertThat(ran).hasValue(0);
        // The same fence name without the key text locks another key: not busy.
        assertThat(fence.call(FenceRequest.of(name), () -> "default key")).isEqualTo("default key");
        unlock(python, PROJ_42);
      }
    }
  }

  @Test
  void anAnnotatedMethodSkipsWithoutRunningWhileAnotherSessionHoldsItsKey() throws Throwable {
    Method m = Integrator.class.getMethod("integrate", String.class, int.class);
    Integrator integrator = new Integrator();
    List<Integer> busyAttempts = new ArrayList<>();
    FenceListener listener =
        new FenceListener() {
          @Override
          public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
            busyAttempts.add(attempts);
          }
        };
    String project = FenceNames.random("proj");
    long key = AdvisoryKeys.keyOfText("vibey.integrate:" + project + ":7");
    try (AdvisoryLockStore store = AdvisoryLockStore.builder(DB.dataSource()).build();
        WriterFence fence = WriterFence.builder(store).listener(listener).build();
        Connection python = DB.dataSource().getConnection()) {
      Object[] args = {project, 7};
      assertThat(tryLock(python, key)).isTrue();

      Object skipped =
          FencedMethods.proceed(fence, m, args, () -> integrator.integrate(project, 7));

      assertThat(skipped).isNull();
      assertThat(integrator.runs).hasValue(0);
      assertThat(busyAttempts).as("one attempt, no retry: a defer").containsExactly(1);

      unlock(python, key);
      Object ran = FencedMethods.proceed(fence, m, args, () -> integrator.integrate(project, 7));

      assertThat(ran).isEqualTo("integrated");
      assertThat(integrator.heldKeysSeen).containsExactly(1L);
      assertThat(tryLock(python, key)).as("freed after the call").isTrue();
      unlock(python, key);
    }
  }

  @Test
  void aKeyTemplateMayUseOnlyTheFenceNamesArguments() {
    FencedMethods.FenceNameTemplate name = FencedMethods.FenceNameTemplate.parse("integrate-{0}");
    assertThatThrownBy(() -> name.advisoryKey("vibey.integrate:{0}:{1}"))
        .hasMessage(
            "writer-fence: advisory key template 'vibey.integrate:{0}:{1}' is not allowed: it uses"
                + " argument {1}, which the fence name 'integrate-{0}' does not use; an advisory"
                + " key may use only the fence name's arguments (so one fence name always takes"
                + " one key)");
    assertThatThrownBy(() -> name.advisoryKey("vibey:{x}"))
        .hasMessageContaining("advisory key template 'vibey:{x}' is not allowed: a placeholder");
    assertThat(name.advisoryKey("vibey.integrate:{0}").resolve(new Object[] {"p"}))
        .isEqualTo("vibey.integrate:p");
  }

  @Test
  void theLeaseBackendRefusesAnAdvisoryKeyAndTheCodeDoesNotRun() {
    String name = FenceNames.random("lease-key");
    try (WriterFence fence = WriterFence.builder(DB.dataSource()).build()) {
      AtomicInteger ran = new AtomicInteger();
      assertThatThrownBy(
              () ->
                  fence.call(
                      FenceRequest.builder(name).advisoryKey("vibey.integrate:p:1").build(),
                      ran::incrementAndGet))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("names advisory key 'vibey.integrate:p:1', but its store (")
          .hasMessageContaining("only the advisory backend (backend=advisory) locks one");
      assertThat(ran).hasValue(0);
    }
  }

  private static BusyRetryPolicy oneAttempt() {
    return BusyRetryPolicy.defaults().withMaxAttempts(1);
  }

  private static boolean tryLock(Connection c, long key) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_try_advisory_lock(" + key + ")")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static void unlock(Connection c, long key) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SELECT pg_advisory_unlock(" + key + ")");
    }
  }
}
