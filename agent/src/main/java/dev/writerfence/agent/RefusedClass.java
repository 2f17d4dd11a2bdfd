package dev.writerfence.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The class file a transformer returns to stop a class from loading: a {@code ClassFileTransformer}
 * cannot refuse a class (the JVM ignores an exception thrown from {@code transform}), but the JVM
 * refuses a class file whose {@code this_class} is not the name being loaded, with {@code
 * NoClassDefFoundError: com/acme/Uploader (wrong name: ...)}. The wrong name carries the reason.
 * JDK code only: it may be needed when Byte Buddy cannot be built.
 */
final class RefusedClass {
  private static final int MAGIC = 0xCAFEBABE;
  private static final int JAVA_8 = 52;
  private static final int UTF8 = 1;
  private static final int CLASS = 7;
  private static final int PUBLIC_SUPER = 0x0021;

  private RefusedClass() {}

  /**
   * @param internalName the class being loaded, as the JVM names it ({@code com/acme/Uploader})
   * @return a valid, empty class file named after it and the reason, which the JVM refuses to
   *     define under {@code internalName}
   */
  static byte[] classFile(String internalName) {
    // No '.', ';', '[' or further '/' after the class's own name: the JVM checks the name's form
    // before it compares it, and a malformed one would give a ClassFormatError instead.
    String wrongName =
        internalName
            + " refused by the writer-fence agent, it could not be instrumented and its fenced"
            + " methods would run unfenced (see the agent's line on stderr)";
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeShort(0); // minor version
      out.writeShort(JAVA_8);
      out.writeShort(5); // constant pool count: four entries, from 1
      out.writeByte(UTF8);
      out.writeUTF(wrongName); // modified UTF-8, as the class file format wants
      out.writeByte(CLASS);
      out.writeShort(1);
      out.writeByte(UTF8);
      out.writeUTF("java/lang/Object");
      out.writeByte(CLASS);
      out.writeShort(3);
      out.writeShort(PUBLIC_SUPER);
      out.writeShort(2); // this_class
      out.writeShort(4); // super_class
      out.writeShort(0); // interfaces
      out.writeShort(0); // fields
      out.writeShort(0); // methods
      out.writeShort(0); // attributes
    } catch (IOException e) {
      throw new UncheckedIOException(e); // not from a byte array
    }
    return bytes.toByteArray();
  }
}
