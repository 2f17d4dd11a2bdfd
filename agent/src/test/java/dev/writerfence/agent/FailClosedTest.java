package dev.writerfence.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.agent.fence.FenceFeature;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A class the fence would instrument but cannot is refused, never loaded unfenced: the bytes the
 * transformer answers are defined in a real class loader, which throws {@code
 * NoClassDefFoundError}. Other classes load unchanged, and a failure belongs to the class being
 * transformed on its thread only.
 */
class FailClosedTest {
  private static final String DATABASE = "jdbc:postgresql://127.0.0.1:9/none";

  @Test
  void aFencedClassByteBuddyFailsToInstrumentIsRefusedWithNoClassDefFoundError() throws Exception {
    String name = "com.acme.huge.FencedUploader";
    byte[] classFile = new HugeClass(name, "upload", null, null, "upload ran", false).classFile();
    FenceFeature fence = new FenceFeature();
    Prefilter claimed = fence.prepare(fenceSettings(name + "#upload=huge"), null);
    DeferredTransformer transformer =
        new DeferredTransformer(
            claimed,
            claimed,
            () -> AgentTransformations.makeRaw(List.of(fence), fenceSettings(name), null));
    Loader loader = new Loader();

    Output out = new Output();
    byte[] answer = out.capture(() -> transform(transformer, loader, name, classFile));

    assertThat(answer).as("the refusal, not the unchanged class (null)").isNotNull();
    assertThatThrownBy(() -> loader.define(name, answer))
        .isInstanceOf(NoClassDefFoundError.class)
        .hasMessageStartingWith(
            "com/acme/huge/FencedUploader (wrong name: com/acme/huge/FencedUploader refused by the"
                + " writer-fence agent, it could not be instrumented and its fenced methods would"
                + " run unfenced");
    assertThat(out.lines())
        .singleElement()
        .asString()
        .contains("refused to load " + name + ", its fenced methods would run unfenced: ")
        .containsIgnoringCase("too large");
    assertThat(new Loader().define(name, classFile))
        .as("the class file itself is valid: only the agent refuses it")
        .isNotNull();
  }

  @Test
  void whenByteBuddyCannotBeBuiltTheFencedClassesAreRefusedAndTheOthersLoadUnchanged()
      throws Exception {
    String fenced = "com.acme.nobb.Uploader";
    String audited = "com.acme.nobb.Client";
    Supplier<ClassFileTransformer> broken =
        () -> {
          throw new NoClassDefFoundError("net/bytebuddy/agent/builder/AgentBuilder");
        };
    DeferredTransformer transformer =
        new DeferredTransformer(
            Prefilter.named(List.of(fenced, audited)), Prefilter.named(List.of(fenced)), broken);
    Loader loader = new Loader();

    Output out = new Output();
    byte[] refused =
        out.capture(
            () -> transform(transformer, loader, fenced, HugeClass.emptyClass(internal(fenced))));
    byte[] unchanged =
        out.capture(
            () -> transform(transformer, loader, audited, HugeClass.emptyClass(internal(audited))));

    assertThatThrownBy(() -> loader.define(fenced, refused))
        .isInstanceOf(NoClassDefFoundError.class)
        .hasMessageContaining(
            "wrong name: com/acme/nobb/Uploader refused by the writer-fence agent");
    assertThat(unchanged).isNull();
    assertThat(out.lines())
        .containsExactly(
            line(
                "refused to load "
                    + fenced
                    + ", its fenced methods would run unfenced: java.lang.IllegalStateException:"
                    + " cannot build Byte Buddy: java.lang.NoClassDefFoundError:"
                    + " net/bytebuddy/agent/builder/AgentBuilder"),
            line(
                "could not instrument "
                    + audited
                    + ", left unchanged: java.lang.IllegalStateException: cannot build Byte Buddy:"
                    + " java.lang.NoClassDefFoundError: net/bytebuddy/agent/builder/AgentBuilder"));
  }

  @Test
  void aFailureBelongsToTheClassBeingTransformedOnThisThreadOnly() throws Exception {
    String outer = "com.acme.tied.Outer";
    String inner = "com.acme.tied.Inner";
    Prefilter both = Prefilter.named(List.of(outer, inner));
    byte[] outerAnswer = {1, 2, 3};

    Output out = new Output();
    byte[][] innerAnswer = new byte[1][];
    byte[] answer =
        out.capture(
            () ->
                FailClosed.transform(
                    internal(outer),
                    null,
                    null,
                    new byte[0],
                    both,
                    () -> {
                      // A class loaded while the outer one is transformed, which fails.
                      innerAnswer[0] =
                          FailClosed.transform(
                              internal(inner),
                              null,
                              null,
                              new byte[0],
                              both,
                              () -> {
                                FailClosed.reportedByByteBuddy(
                                    inner, new IllegalStateException("x"));
                                return null;
                              });
                      return outerAnswer;
                    }));

    assertThat(answer)
        .as("the outer class is transformed as its delegate said")
        .isSameAs(outerAnswer);
    assertThat(innerAnswer[0]).isNotNull();
    assertThat(out.lines()).singleElement().asString().contains("refused to load " + inner);
  }

  @Test
  void aLoadedClassCannotBeRefusedAndTheAgentSaysItStaysUnfenced() throws Exception {
    String name = "com.acme.loaded.Uploader";
    Output out = new Output();
    byte[] answer =
        out.capture(() -> failing(name, FailClosedTest.class, Prefilter.named(List.of(name))));

    assertThat(answer).isNull();
    assertThat(out.lines())
        .singleElement()
        .asString()
        .contains(
            "could not instrument "
                + name
                + ", already loaded so it cannot be refused: it keeps running unfenced");
  }

  @Test
  void aFailureOfAClassTheFenceDoesNotClaimLeavesItUnchanged() throws Exception {
    String name = "com.acme.audited.Client";
    Output out = new Output();
    byte[] answer =
        out.capture(() -> failing(name, null, Prefilter.named(List.of("com.acme.audited.Other"))));

    assertThat(answer).isNull();
    assertThat(out.lines())
        .containsExactly(
            line(
                "could not instrument "
                    + name
                    + ", left unchanged: java.lang.IllegalStateException: too big"));
  }

  /** A transformation of {@code name} during which Byte Buddy reports that it failed. */
  private static byte[] failing(String name, Class<?> redefined, Prefilter failClosed)
      throws IllegalClassFormatException {
    return FailClosed.transform(
        internal(name),
        null,
        redefined,
        new byte[0],
        failClosed,
        () -> {
          FailClosed.reportedByByteBuddy(name, new IllegalStateException("too big"));
          return null;
        });
  }

  private static byte[] transform(
      ClassFileTransformer transformer, Loader loader, String name, byte[] classFile)
      throws IllegalClassFormatException {
    return transformer.transform(
        loader.getUnnamedModule(), loader, internal(name), null, null, classFile);
  }

  private static AgentSettings fenceSettings(String methods) {
    Properties system = new Properties();
    system.setProperty("writer-fence.fence.methods", methods);
    system.setProperty("writer-fence.datasource.url", DATABASE);
    return AgentSettings.load(null, system);
  }

  private static String internal(String binaryName) {
    return binaryName.replace('.', '/');
  }

  private static String line(String message) {
    return "writer-fence agent " + AgentLog.version() + ": " + message;
  }

  /** Defines class files as given, with only the bootstrap loader above it. */
  private static final class Loader extends ClassLoader {
    Loader() {
      super(null);
    }

    Class<?> define(String name, byte[] classFile) {
      return defineClass(name, classFile, 0, classFile.length);
    }
  }

  /** The agent's stderr lines while a transformation runs. */
  private static final class Output {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    interface Work {
      byte[] run() throws Exception;
    }

    byte[] capture(Work work) throws Exception {
      PrintStream before = System.err;
      System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      try {
        return work.run();
      } finally {
        System.setErr(before);
      }
    }

    List<String> lines() {
      return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }
  }
}
