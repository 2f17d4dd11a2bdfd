package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key of an embedded store's write as the report shows it. */
class StoreKeysTest {
  private static Object[] target(Object store, Object... args) {
    return new Object[] {store, args};
  }

  @Test
  void printableUtf8IsTextAndAnythingElseShortHex() {
    assertThat(StoreKeys.key(target("s", "x".getBytes(StandardCharsets.UTF_8)))).isEqualTo("x");
    assertThat(StoreKeys.key(target("s", "clé/1".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("clé/1");
    assertThat(StoreKeys.key(target("s", (Object) new byte[] {0, 1, (byte) 0xff})))
        .isEqualTo("0x0001ff");
    assertThat(StoreKeys.key(target("s", (Object) new byte[0]))).isEqualTo("0x");
    assertThat(StoreKeys.key(target("s", (Object) new byte[40])))
        .isEqualTo("0x" + "00".repeat(StoreKeys.HEX_BYTES) + "...");
  }

  @Test
  void aBufferIsReadFromItsPositionToItsLimitAndLeftUnchanged() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(8).put("abcdef".getBytes(StandardCharsets.UTF_8));
    buffer.flip().position(2);

    assertThat(StoreKeys.key(target("s", null, buffer, ByteBuffer.allocate(1)))).isEqualTo("cdef");
    assertThat(buffer.position()).isEqualTo(2);
    assertThat(buffer.limit()).isEqualTo(6);
  }

  @Test
  void anArrayWithOffsetAndLengthIsCutToThem() {
    byte[] bytes = "xxkeyxx".getBytes(StandardCharsets.UTF_8);

    assertThat(StoreKeys.key(target("s", bytes, 2, 3, new byte[1], 0, 1))).isEqualTo("key");
  }

  @Test
  void anIngestionNamesItsFirstFileAndACallWithoutKeyNone() {
    assertThat(StoreKeys.key(target("s", List.of("/a.sst", "/b.sst"), "options")))
        .isEqualTo("/a.sst");
    assertThat(StoreKeys.key(target("s", "options", 3))).isNull();
    assertThat(StoreKeys.key(new Object[] {"s"})).isNull();
    assertThat(StoreKeys.key(null)).isNull();
    assertThat(StoreKeys.store(target("s"))).isEqualTo("s");
  }
}
