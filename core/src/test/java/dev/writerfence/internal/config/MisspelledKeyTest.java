package dev.writerfence.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.config.WriterFenceSettings;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * A key that is almost a known one is refused with the known key it most likely meant, then the
 * whole list; a key close to none gets the list alone.
 */
class MisspelledKeyTest {

  private static IllegalArgumentException refusalOf(String property) {
    Properties p = new Properties();
    p.setProperty(property, "1");
    try {
      WriterFenceSettings.fromProperties(p);
    } catch (IllegalArgumentException e) {
      return e;
    }
    throw new AssertionError(property + " was not refused");
  }

  @Test
  void aTypoIsAnsweredWithTheKeyItMeantThenEveryKnownKey() {
    assertThat(refusalOf("writer-fence.retry.max-atempts"))
        .hasMessageStartingWith("writer-fence: unknown setting 'writer-fence.retry.max-atempts'")
        .hasMessageContaining(
            "; did you mean writer-fence.retry.max-attempts? known settings: "
                + SettingsCatalog.knownKeys());
    assertThat(refusalOf("writer-fence.querytimeout"))
        .hasMessageContaining("did you mean writer-fence.query-timeout?");
  }

  @Test
  void aTranspositionCountsAsOneEdit() {
    assertThat(refusalOf("writer-fence.retry.max-wiat"))
        .hasMessageContaining("; did you mean writer-fence.retry.max-wait? known settings: ");
    assertThat(ClosestKeys.distance("max-wiat", "max-wait")).isEqualTo(1);
    assertThat(ClosestKeys.distance("max-wait", "max-wait")).isZero();
    assertThat(ClosestKeys.distance("ttl", "schema")).isEqualTo(6);
  }

  @Test
  void aKeyCloseToNoneGetsTheKnownKeysAlone() {
    assertThat(refusalOf("writer-fence.colour")).hasMessageNotContaining("did you mean");
    assertThat(SettingsCatalog.unknown("writer-fence.colour", "a test"))
        .hasMessage(
            "writer-fence: unknown setting 'writer-fence.colour' (from a test); known settings: "
                + SettingsCatalog.knownKeys());
    // Close enough is at most a third of the key's length: a short key is not near a short one
    // three edits away.
    assertThat(ClosestKeys.to("abc", List.of("ttl", "abcdef"))).isEmpty();
    assertThat(ClosestKeys.to("tll", List.of("ttl", "abcdef"))).containsExactly("ttl");
    // colour -> holder is three edits, more than a third of six characters.
    assertThat(ClosestKeys.distance("colour", "holder")).isEqualTo(3);
    assertThat(ClosestKeys.to("colour", List.of("holder"))).isEmpty();
  }

  @Test
  void severalEquallyCloseKeysAreAllNamed() {
    assertThat(ClosestKeys.to("retry.max-xxxx", List.of("retry.max-wait", "retry.max-xxxxx")))
        .containsExactly("retry.max-xxxxx");
    assertThat(ClosestKeys.to("a.max-b", List.of("a.max-c", "a.max-d", "zzzzzzz")))
        .containsExactly("a.max-c", "a.max-d");
  }

  @Test
  void theAgentsBareKeysAndSpringsLowerCasedNamesAreAnsweredInTheirOwnForm() {
    assertThat(SettingsCatalog.unknown("fence.method", "fence.properties"))
        .hasMessageContaining("did you mean fence.methods?");
    // Spring hands over its relaxed names in lower case: retry.maxAtempts.
    assertThat(SettingsCatalog.whyUnknown("retry.maxatempts"))
        .startsWith("unknown setting; did you mean retry.max-attempts? known settings: ");
  }
}
