package dev.writerfence.agent.audit;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Bucket and key of a write to an embedded store (LMDB, RocksDB), whose advice passes {@code new
 * Object[] {store, arguments}}: the store object and the method's arguments. A key is a {@code
 * byte[]} or a {@link ByteBuffer} (or a RocksDB slice holding one); it is reported as text when its
 * bytes are printable UTF-8, else as a short hex string. Only unfenced writes are described, so a
 * fenced write never pays for this.
 */
public final class StoreKeys {
  /** Bytes shown in hex before the rest is cut off. */
  static final int HEX_BYTES = 32;

  /** Characters of a text key shown before the rest is cut off. */
  static final int TEXT_CHARS = 200;

  private StoreKeys() {}

  /**
   * @param target what the advice passed; may be {@code null}
   * @return the store object, or {@code null}
   */
  public static Object store(Object target) {
    return target instanceof Object[] t && t.length > 0 ? t[0] : null;
  }

  /**
   * The first argument that is a key: a {@code byte[]} (cut to its offset and length when the next
   * two arguments are {@code int}s, as in RocksDB's {@code put(byte[], int, int, ...)}), a {@link
   * ByteBuffer}, a slice with a {@code data()} method, or the first name of a list of files.
   *
   * @param target what the advice passed; may be {@code null}
   * @return the key as text, or {@code null} when the call names none
   */
  public static String key(Object target) {
    if (!(target instanceof Object[] t) || t.length < 2 || !(t[1] instanceof Object[] args)) {
      return null;
    }
    for (int i = 0; i < args.length; i++) {
      Object arg = args[i];
      if (arg instanceof byte[] bytes) {
        if (i + 2 < args.length
            && args[i + 1] instanceof Integer offset
            && args[i + 2] instanceof Integer length
            && offset >= 0
            && length >= 0
            && offset + length <= bytes.length) {
          return text(ByteBuffer.wrap(bytes, offset, length));
        }
        return text(bytes);
      }
      if (arg instanceof ByteBuffer buffer) {
        return text(buffer);
      }
      if (arg instanceof List<?> files && !files.isEmpty() && files.get(0) instanceof String f) {
        return f;
      }
      Object data = sliceData(arg);
      if (data != null) {
        return text(data);
      }
    }
    return null;
  }

  /**
   * @param key a {@code byte[]} or a {@link ByteBuffer} (read from its position to its limit, left
   *     unchanged)
   * @return printable UTF-8 as text, else {@code 0x} and hex; {@code null} for another type
   */
  static String text(Object key) {
    ByteBuffer bytes;
    if (key instanceof byte[] array) {
      bytes = ByteBuffer.wrap(array);
    } else if (key instanceof ByteBuffer buffer) {
      bytes = buffer.duplicate();
    } else {
      return null;
    }
    ByteBuffer copy = bytes.duplicate();
    try {
      CharBuffer chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(copy);
      if (printable(chars)) {
        String text = chars.toString();
        return text.length() > TEXT_CHARS ? text.substring(0, TEXT_CHARS) + "..." : text;
      }
    } catch (CharacterCodingException e) {
      // Not text: hex below.
    }
    StringBuilder hex = new StringBuilder("0x");
    int n = Math.min(bytes.remaining(), HEX_BYTES);
    for (int i = 0; i < n; i++) {
      hex.append(String.format("%02x", bytes.get(bytes.position() + i)));
    }
    return bytes.remaining() > HEX_BYTES ? hex.append("...").toString() : hex.toString();
  }

  private static boolean printable(CharBuffer chars) {
    if (!chars.hasRemaining()) {
      return false;
    }
    for (int i = chars.position(); i < chars.limit(); i++) {
      char c = chars.get(i);
      if (Character.isISOControl(c) || Character.getType(c) == Character.UNASSIGNED) {
        return false;
      }
    }
    return true;
  }

  /**
   * A RocksDB {@code Slice} or {@code DirectSlice} (an {@code org.rocksdb.AbstractSlice}): its
   * {@code data()}. Not a {@code WriteBatch}, whose {@code data()} is the whole batch.
   */
  private static Object sliceData(Object arg) {
    if (!isSlice(arg)) {
      return null;
    }
    try {
      Method data = arg.getClass().getMethod("data");
      return data.invoke(arg);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static boolean isSlice(Object arg) {
    for (Class<?> c = arg == null ? null : arg.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getName().equals("org.rocksdb.AbstractSlice")) {
        return true;
      }
    }
    return false;
  }
}
