package dev.writerfence.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.retry.BusyRetryPolicy;
import java.time.Duration;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The catalog itself, and the process fence's parser against it: every key of every mode is
 * accepted, a key outside the catalog is not, and each bad value is named.
 */
class SettingsCatalogTest {
  private static final DataSource NOWHERE = new PGSimpleDataSource();

  @AfterEach
  void clear() {
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(SettingsCatalog.PREFIX)) {
        System.clearProperty(name);
      }
    }
    ProcessFence.set(null);
  }

  /** Every setting of every mode at once, each with its example value, as system properties. */
  static Properties everySetting() {
    Properties p = new Properties();
    for (Setting<?> s : SettingsCatalog.all()) {
      String key = s.isFamily() ? s.familyPrefix() + "aws-s3-v2" : s.key();
      p.setProperty(SettingsCatalog.PREFIX + key, s.example());
    }
    return p;
  }

  @Test
  void theProcessFenceAcceptsTheKeysOfEveryMode() {
    Properties all = everySetting();
    assertThat(all.stringPropertyNames())
        .contains(
            "writer-fence.audit.paths",
            "writer-fence.fence.methods",
            "writer-fence.audit.require-fence.aws-s3-v2",
            "writer-fence.schema.initialize",
            "writer-fence.advisory.pool-size",
            "writer-fence.enabled");

    WriterFenceSettings settings = WriterFenceSettings.fromProperties(all);
    assertThatCode(settings::check).doesNotThrowAnyException();
    WriterFence fence = settings.buildFence(NOWHERE);
    try {
      // The values it reads are the examples; the others were accepted and left to their modes.
      assertThat(fence.defaultTtl()).isEqualTo(Duration.ofMinutes(2));
      assertThat(fence.renewInterval(fence.defaultTtl())).hasValue(Duration.ofSeconds(20));
      assertThat(fence.defaultPriority()).isEqualTo(10);
      assertThat(fence.queueLapse()).isEqualTo(Duration.ofSeconds(10));
      assertThat(fence.queuePollInterval()).isEqualTo(Duration.ofMillis(20));
      assertThat(fence.queueBusyEarly()).isTrue();
      assertThat(fence.defaultRetryPolicy().maxWait()).isEqualTo(Duration.ofSeconds(10));
      assertThat(fence.defaultRetryPolicy().budget()).isEqualTo(Duration.ofSeconds(10));
      assertThat(fence.defaultRetryPolicy().maxAttempts()).isEqualTo(7);
    } finally {
      fence.close();
    }
  }

  @Test
  void processFenceGetReadsTheSystemPropertiesOfEveryModeWithoutRefusingAny() {
    everySetting().forEach((k, v) -> System.setProperty((String) k, (String) v));
    System.clearProperty(SettingsCatalog.DATASOURCE_URL.property());

    // Not "unknown setting": it got as far as finding no database to build a fence on.
    assertThatThrownBy(ProcessFence::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no WriterFence is configured");
  }

  @Test
  void aKeyOutsideTheCatalogIsRefusedNamingItAndTheKnownOnes() {
    Properties p = new Properties();
    p.setProperty("writer-fence.audit.modes", "log");

    assertThatThrownBy(() -> WriterFenceSettings.fromProperties(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown setting 'writer-fence.audit.modes'")
        .hasMessageContaining("audit.mode, audit.report");
  }

  @Test
  void anUnknownClientOfRequireFenceIsRefusedNamingItAndTheKnownClients() {
    Properties p = new Properties();
    p.setProperty("writer-fence.audit.require-fence.gsc", "corpus");

    assertThatThrownBy(() -> WriterFenceSettings.fromProperties(p))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown setting 'writer-fence.audit.require-fence.gsc'")
        .hasMessageContaining("'gsc' is no known client of audit.require-fence.<client>")
        .hasMessageContaining("known clients: " + String.join(", ", SettingsCatalog.AUDIT_CLIENTS));
    assertThat(SettingsCatalog.isKnown("audit.require-fence.gcs")).isTrue();
    assertThat(SettingsCatalog.isKnown("audit.require-fence.gsc")).isFalse();
    assertThat(SettingsCatalog.AUDIT_REQUIRE_FENCE_PER_CLIENT.meaning())
        .endsWith(String.join(", ", SettingsCatalog.AUDIT_CLIENTS));
  }

  @Test
  void everyKeyIsDefinedOnceAndNoTwoSettingsClaimOneKey() {
    Set<String> keys = new HashSet<>();
    for (Setting<?> s : SettingsCatalog.all()) {
      assertThat(keys.add(s.key())).as("defined twice: %s", s.key()).isTrue();
      String member = s.members().isEmpty() ? "x" : s.members().get(0);
      String probe = s.isFamily() ? s.familyPrefix() + member : s.key();
      assertThat(SettingsCatalog.find(probe)).as(probe).containsSame(s);
      assertThat(s.modes()).as(s.key()).isNotEmpty();
      assertThat(s.meaning()).as(s.key()).isNotBlank();
    }
    assertThat(SettingsCatalog.find("audit.require-fence.")).isEmpty();
  }

  @Test
  void everyExampleAndDefaultParses() {
    for (Setting<?> s : SettingsCatalog.all()) {
      assertThatCode(() -> s.parse(s.example())).as(s.key()).doesNotThrowAnyException();
      assertThatCode(s::parsedDefault).as(s.key()).doesNotThrowAnyException();
      if (s.kind() == Setting.Kind.CHOICE) {
        assertThat(s.defaultValue()).as(s.key()).isPresent();
        assertThat(s.choices()).contains(s.defaultValue().orElseThrow());
      }
    }
  }

  @Test
  void theDefaultsAreTheCoresDefaults() {
    BusyRetryPolicy retry = BusyRetryPolicy.defaults();
    assertThat(SettingsCatalog.TTL.parsedDefault()).hasValue(WriterFence.DEFAULT_TTL);
    assertThat(SettingsCatalog.QUERY_TIMEOUT.parsedDefault())
        .hasValue(WriterFence.DEFAULT_QUERY_TIMEOUT);
    assertThat(SettingsCatalog.RETRY_MAX_ATTEMPTS.parsedDefault()).hasValue(retry.maxAttempts());
    assertThat(SettingsCatalog.RETRY_INITIAL_INTERVAL.parsedDefault())
        .hasValue(retry.initialInterval());
    assertThat(SettingsCatalog.RETRY_MULTIPLIER.parsedDefault()).hasValue(retry.multiplier());
    assertThat(SettingsCatalog.RETRY_MAX_INTERVAL.parsedDefault()).hasValue(retry.maxInterval());
    assertThat(SettingsCatalog.PRIORITY.parsedDefault()).hasValue(0);
    assertThat(SettingsCatalog.QUEUE_LAPSE.parsedDefault())
        .hasValue(WriterFence.DEFAULT_QUEUE_LAPSE);
    assertThat(SettingsCatalog.QUEUE_POLL_INTERVAL.parsedDefault())
        .hasValue(WriterFence.DEFAULT_QUEUE_POLL_INTERVAL);
    // retry.max-wait has no value of its own: the attempts' scheduled wait is the budget.
    assertThat(SettingsCatalog.RETRY_MAX_WAIT.parsedDefault()).isEmpty();
    assertThat(SettingsCatalog.RETRY_MAX_WAIT.defaultText())
        .contains("about " + retry.scheduledWait().toSeconds() + " s");
    // A fence built from no settings at all has these defaults.
    WriterFence fence = WriterFenceSettings.fromProperties(new Properties()).buildFence(NOWHERE);
    try {
      assertThat(fence.defaultTtl()).isEqualTo(SettingsCatalog.TTL.parsedDefault().orElseThrow());
      assertThat(fence.defaultPriority()).isZero();
      assertThat(fence.queueLapse()).isEqualTo(WriterFence.DEFAULT_QUEUE_LAPSE);
      assertThat(fence.queuePollInterval()).isEqualTo(WriterFence.DEFAULT_QUEUE_POLL_INTERVAL);
      assertThat(fence.queueBusyEarly()).isFalse();
      assertThat(fence.defaultRetryPolicy().maxWait()).isNull();
      assertThat(fence.defaultRetryPolicy().budget()).isEqualTo(retry.scheduledWait());
    } finally {
      fence.close();
    }
  }

  @Test
  void aBadValueIsNamedWithItsKeyAndWhatIsAllowed() {
    assertThatThrownBy(() -> SettingsCatalog.BACKEND.parse("redis"))
        .hasMessage("writer-fence: backend 'redis' is not allowed: lease, advisory or lease-rpc");
    assertThatThrownBy(() -> SettingsCatalog.AUDIT_MODE.parse("warn"))
        .hasMessage("writer-fence: audit.mode 'warn' is not allowed: off, log or enforce");
    assertThatThrownBy(() -> SettingsCatalog.TTL.parse("500ms"))
        .hasMessageStartingWith("writer-fence: ttl '500ms': TTL PT0.5S is not allowed");
    assertThatThrownBy(() -> SettingsCatalog.ADVISORY_POOL_SIZE.parse("1"))
        .hasMessageStartingWith("writer-fence: advisory.pool-size '1' is not allowed: at least 2");
    assertThatThrownBy(() -> SettingsCatalog.AUDIT_PATHS.parse("/a,,/b"))
        .hasMessageContaining("audit.paths '/a,,/b' has an empty entry");
    assertThatThrownBy(
            () ->
                SettingsCatalog.AUDIT_REQUIRE_FENCE_PER_CLIENT.parse(
                    "audit.require-fence.gcs", " "))
        .hasMessageStartingWith("writer-fence: audit.require-fence.gcs '': fence name");
  }

  @Test
  void aBadQueueValueIsNamedAndNoFenceIsBuilt() {
    assertThatThrownBy(() -> SettingsCatalog.PRIORITY.parse("101"))
        .hasMessage("writer-fence: priority '101': priority 101 is not allowed: -100 to 100");
    assertThatThrownBy(() -> SettingsCatalog.PRIORITY.parse("high"))
        .hasMessage("writer-fence: priority 'high' is not a whole number");
    assertThatThrownBy(() -> SettingsCatalog.QUEUE_LAPSE.parse("1500ms"))
        .hasMessageStartingWith("writer-fence: queue.lapse '1500ms': ticket lapse PT1.5S")
        .hasMessageContaining("whole seconds from 1 to 60");
    assertThatThrownBy(() -> SettingsCatalog.QUEUE_LAPSE.parse("2m"))
        .hasMessageContaining("whole seconds from 1 to 60");
    assertThatThrownBy(() -> SettingsCatalog.QUEUE_POLL_INTERVAL.parse("2s"))
        .hasMessageStartingWith("writer-fence: queue.poll-interval '2s'")
        .hasMessageContaining("from 1 ms to 1 s");
    assertThatThrownBy(() -> SettingsCatalog.RETRY_MAX_WAIT.parse("0s"))
        .hasMessageStartingWith("writer-fence: retry.max-wait '0s'")
        .hasMessageContaining("at least 1 ms");

    Properties p = new Properties();
    p.setProperty("writer-fence.queue.poll-interval", "0ms");
    WriterFenceSettings settings = WriterFenceSettings.fromProperties(p);
    assertThatThrownBy(() -> settings.buildFence(NOWHERE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue.poll-interval '0ms'");
  }

  @Test
  void durationsAreWrittenAsTheyAreRead() {
    for (Duration d :
        new Duration[] {
          Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofHours(1)
        }) {
      assertThat(SettingsCatalog.duration("x", SettingsCatalog.text(d))).isEqualTo(d);
    }
    assertThat(SettingsCatalog.text(Duration.ofSeconds(90))).isEqualTo("90s");
  }
}
