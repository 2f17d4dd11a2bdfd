package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The advisory-lock key of a fence name: the first 8 bytes of sha256, signed big-endian. */
class AdvisoryKeysTest {

  @Test
  void keysOfFixedNamesAreKnownVectors() {
    // Computed elsewhere: python3 -c "import hashlib,struct;
    //   print(struct.unpack('>q', hashlib.sha256(b'writer-fence:corpus').digest()[:8])[0])"
    assertThat(AdvisoryKeys.keyOf("corpus")).isEqualTo(3457266040830166800L);
    assertThat(AdvisoryKeys.CORPUS_KEY).isEqualTo(3457266040830166800L);
    assertThat(AdvisoryKeys.keyOf("bucket-a")).as("signed").isEqualTo(-521600595747767039L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"corpus", "bucket-a", "x", "Größe/日本語/🙂", "corpus:eu-west-1/2026"})
  void keyIsTheFirstEightBytesOfSha256InJavaAndInPostgres(String fenceName) throws Exception {
    byte[] digest =
        MessageDigest.getInstance("SHA-256")
            .digest(("writer-fence:" + fenceName).getBytes(StandardCharsets.UTF_8));
    long expected = ByteBuffer.wrap(digest).getLong();

    assertThat(AdvisoryKeys.keyOf(fenceName)).isEqualTo(expected);
    assertThat(
            DB.queryValue(
                Long.class,
                "SELECT ('x' || left(encode(sha256(convert_to('writer-fence:' || ?, 'UTF8')),"
                    + " 'hex'), 16))::bit(64)::bigint",
                fenceName))
        .as("the SQL in AdvisoryKeys' Javadoc")
        .isEqualTo(expected);
  }

  @Test
  void aFenceNameThatBreaksTheRulesHasNoKey() {
    assertThatThrownBy(() -> AdvisoryKeys.keyOf(" corpus"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AdvisoryKeys.keyOf(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
