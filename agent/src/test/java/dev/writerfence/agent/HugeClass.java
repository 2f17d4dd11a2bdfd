package dev.writerfence.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Class files that no advice fits into, so that Byte Buddy genuinely fails to instrument them: one
 * method whose code is already as large as the class file format allows (65535 bytes), then prints
 * a line, the mark that its body ran. Generated with the ASM that Byte Buddy bundles.
 *
 * @param binaryName the class's name ({@code com.acme.Uploader})
 * @param method the huge method's name; it is public, returns {@code void} and takes {@code
 *     parameter}
 * @param parameter the huge method's one parameter's internal name, or {@code null} for none
 * @param annotation the descriptor of an annotation on the huge method ({@code
 *     Ldev/writerfence/annotation/WriterFenced;}, its {@code value} {@code "huge"}), or {@code
 *     null}
 * @param ran what the huge method prints at its end
 * @param withMain whether the class gets a {@code main} that calls the method on a new instance
 *     (with {@code null} for its parameter)
 */
public record HugeClass(
    String binaryName,
    String method,
    String parameter,
    String annotation,
    String ran,
    boolean withMain) {
  /** Leaves no room for any advice within the JVM's limit of 65535 bytes of code. */
  private static final int NOPS = 65_520;

  /**
   * @return the class file
   */
  public byte[] classFile() {
    String internal = binaryName.replace('.', '/');
    ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
    cw.visit(
        Opcodes.V17,
        Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER,
        internal,
        null,
        "java/lang/Object",
        null);

    MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
    init.visitCode();
    init.visitVarInsn(Opcodes.ALOAD, 0);
    init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
    init.visitInsn(Opcodes.RETURN);
    init.visitMaxs(0, 0);
    init.visitEnd();

    String descriptor = descriptor();
    MethodVisitor huge = cw.visitMethod(Opcodes.ACC_PUBLIC, method, descriptor, null, null);
    if (annotation != null) {
      var a = huge.visitAnnotation(annotation, true);
      a.visit("value", "huge");
      a.visitEnd();
    }
    huge.visitCode();
    for (int i = 0; i < NOPS; i++) {
      huge.visitInsn(Opcodes.NOP);
    }
    println(huge, ran);
    huge.visitInsn(Opcodes.RETURN);
    huge.visitMaxs(0, 0);
    huge.visitEnd();

    if (withMain) {
      MethodVisitor main =
          cw.visitMethod(
              Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC,
              "main",
              "([Ljava/lang/String;)V",
              null,
              null);
      main.visitCode();
      main.visitTypeInsn(Opcodes.NEW, internal);
      main.visitInsn(Opcodes.DUP);
      main.visitMethodInsn(Opcodes.INVOKESPECIAL, internal, "<init>", "()V", false);
      if (parameter != null) {
        main.visitInsn(Opcodes.ACONST_NULL);
      }
      main.visitMethodInsn(Opcodes.INVOKEVIRTUAL, internal, method, descriptor, false);
      main.visitInsn(Opcodes.RETURN);
      main.visitMaxs(0, 0);
      main.visitEnd();
    }
    cw.visitEnd();
    return cw.toByteArray();
  }

  /**
   * Writes {@link #classFile()} under a class-path directory.
   *
   * @param classes the directory
   * @throws IOException when it cannot be written
   */
  public void writeInto(Path classes) throws IOException {
    write(classes, binaryName.replace('.', '/'), classFile());
  }

  /**
   * @param classes a class-path directory
   * @param internalName the class's internal name
   * @param classFile its class file, written to {@code classes/internalName.class}
   * @throws IOException when it cannot be written
   */
  public static void write(Path classes, String internalName, byte[] classFile) throws IOException {
    Path file = classes.resolve(internalName + ".class");
    Files.createDirectories(file.getParent());
    Files.write(file, classFile);
  }

  /**
   * @param internalName a class's internal name
   * @return an empty public class of that name
   */
  public static byte[] emptyClass(String internalName) {
    ClassWriter cw = new ClassWriter(0);
    cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, internalName, null, "java/lang/Object", null);
    cw.visitEnd();
    return cw.toByteArray();
  }

  private String descriptor() {
    return parameter == null ? "()V" : "(L" + parameter + ";)V";
  }

  private static void println(MethodVisitor m, String line) {
    m.visitFieldInsn(Opcodes.GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
    m.visitLdcInsn(line);
    m.visitMethodInsn(
        Opcodes.INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V", false);
  }
}
