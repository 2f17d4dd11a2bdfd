package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The test kit's delegating stores pass an advisory key text through unchanged (ADR 58): it names a
 * lock shared with writers outside the test, so the prefix leaves it alone.
 */
class DelegatingStoresAdvisoryKeyTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void bothStoresLockTheKeyOfTheTextAsGiven() {
    String text = FenceNames.random("kit.key") + ":1";
    long key = AdvisoryKeys.keyOfText(text);
    try (AdvisoryLockStore real = AdvisoryLockStore.builder(DB.dataSource()).build()) {
      PrefixedLeaseStore prefixed = new PrefixedLeaseStore(real, "kit-prefix:");
      StoreLease viaPrefix =
          prefixed.acquire("fence", text, UUID.randomUUID(), "a", TTL).orElseThrow();
      assertThat(holdersOf(key)).isEqualTo(1);

      RecordingLeaseStore recording = new RecordingLeaseStore(real);
      UUID token = UUID.randomUUID();
      Ticket ticket = new Ticket("fence", UUID.randomUUID(), "b", 0, Duration.ofSeconds(5));
      assertThat(recording.acquireInTurn(ticket, text, token, TTL).acquired())
          .as("the same key, held through the prefixed store")
          .isFalse();
      assertThat(recording.acquireTokens()).containsExactly(token);

      assertThat(viaPrefix.release()).isTrue();
      StoreLease viaRecording =
          recording.acquire("fence", text, UUID.randomUUID(), "b", TTL).orElseThrow();
      assertThat(holdersOf(key)).isEqualTo(1);
      assertThat(viaRecording.release()).isTrue();
      assertThat(holdersOf(key)).isZero();
    }
  }

  private static long holdersOf(long key) {
    return DB.advisoryHolders(key);
  }
}
