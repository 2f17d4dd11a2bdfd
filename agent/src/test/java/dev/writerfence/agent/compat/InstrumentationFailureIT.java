package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

/**
 * A class the agent matches but cannot transform: its one write operation is already as large as
 * the class file format allows, so no advice fits. The host runs on, with the class unchanged, and
 * the agent says so once, in one line naming the class and the agent's version.
 */
class InstrumentationFailureIT {
  /** Matched by name by the S3 audit (the transfer manager's internal package, no hierarchy). */
  private static final String HUGE =
      "software.amazon.awssdk.transfer.s3.internal.HugeTransferManager";

  /** The argument type that makes {@code upload} a transfer-manager write to the audit. */
  private static final String REQUEST = "software/amazon/awssdk/transfer/s3/model/UploadRequest";

  /** The JVM's limit on a method's code is 65535 bytes; this leaves room for no advice. */
  private static final int NOPS = 65_530;

  @Test
  void failedInstrumentationIsLoggedOnceAndTheHostRunsOn() throws IOException {
    Path classes = Files.createTempDirectory("writer-fence-huge-");
    Path file = classes.resolve(HUGE.replace('.', '/') + ".class");
    Files.createDirectories(file.getParent());
    Files.write(file, hugeTransferManager());
    Path request = classes.resolve(REQUEST + ".class");
    Files.createDirectories(request.getParent());
    Files.write(request, emptyClass(REQUEST));

    AgentJvm.Result r =
        AgentJvm.onThisJdk().withAgent("audit.mode=log").classPath(classes).main(HUGE).run();

    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout()).as(r.describe()).containsExactly("huge transfer manager ran");
    List<String> failures =
        r.stderr().lines().filter(l -> l.contains("could not instrument")).toList();
    assertThat(failures).as(r.describe()).hasSize(1);
    assertThat(failures.get(0))
        .startsWith("writer-fence agent " + AgentJvm.agentVersion() + ": ")
        .contains("could not instrument " + HUGE + ", left unchanged: ");
  }

  /**
   * A class with a public write operation {@code upload(UploadRequest)} of {@value #NOPS} no-ops,
   * and a {@code main} that calls it and prints one line. The request type need not exist: the JVM
   * never loads it for a {@code null} argument.
   */
  private static byte[] hugeTransferManager() {
    String internal = HUGE.replace('.', '/');
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

    String request = "(L" + REQUEST + ";)V";
    MethodVisitor upload = cw.visitMethod(Opcodes.ACC_PUBLIC, "upload", request, null, null);
    upload.visitCode();
    for (int i = 0; i < NOPS; i++) {
      upload.visitInsn(Opcodes.NOP);
    }
    upload.visitInsn(Opcodes.RETURN);
    upload.visitMaxs(0, 0);
    upload.visitEnd();

    MethodVisitor main =
        cw.visitMethod(
            Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "main", "([Ljava/lang/String;)V", null, null);
    main.visitCode();
    main.visitTypeInsn(Opcodes.NEW, internal);
    main.visitInsn(Opcodes.DUP);
    main.visitMethodInsn(Opcodes.INVOKESPECIAL, internal, "<init>", "()V", false);
    main.visitInsn(Opcodes.ACONST_NULL);
    main.visitMethodInsn(Opcodes.INVOKEVIRTUAL, internal, "upload", request, false);
    main.visitFieldInsn(Opcodes.GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
    main.visitLdcInsn("huge transfer manager ran");
    main.visitMethodInsn(
        Opcodes.INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V", false);
    main.visitInsn(Opcodes.RETURN);
    main.visitMaxs(0, 0);
    main.visitEnd();

    cw.visitEnd();
    return cw.toByteArray();
  }

  private static byte[] emptyClass(String internalName) {
    ClassWriter cw = new ClassWriter(0);
    cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, internalName, null, "java/lang/Object", null);
    cw.visitEnd();
    return cw.toByteArray();
  }
}
