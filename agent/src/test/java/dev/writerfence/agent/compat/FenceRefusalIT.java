package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.UploadApp;
import dev.writerfence.agent.HugeClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A class the fence would instrument but Byte Buddy genuinely cannot (its {@code upload()} is
 * already as large as the class file format allows, so no advice fits) is refused: the application
 * gets {@code NoClassDefFoundError} naming the class and why, every time it asks, and the write
 * never runs. The agent says so once, in one line naming the class. A class already loaded when the
 * agent attaches cannot be refused: the agent says it stays unfenced.
 */
class FenceRefusalIT {
  private static final String WRITER = "com.acme.huge.HugeUploader";
  private static final String DATABASE = "datasource.url=jdbc:postgresql://127.0.0.1:9/none";
  private static final String RAN = "upload ran";
  private static final String WRONG_NAME =
      "not loaded: com/acme/huge/HugeUploader (wrong name: com/acme/huge/HugeUploader refused by"
          + " the writer-fence agent, it could not be instrumented and its fenced methods would run"
          + " unfenced (see the agent's line on stderr))";
  private static final Path TEST_CLASSES = Path.of("target", "test-classes");

  @Test
  void aFenceMethodsClassThatCannotBeInstrumentedIsRefusedAndItsWriteNeverRuns()
      throws IOException {
    // Propagation off: Byte Buddy is built when the class loads, the deferred path.
    AgentJvm.Result r =
        run(
            writer(null),
            "fence.methods=" + WRITER + "#upload=huge",
            DATABASE,
            "agent.propagation=false");

    assertRefused(r);
  }

  @Test
  void aWriterFencedClassThatCannotBeInstrumentedIsRefused() throws IOException {
    AgentJvm.Result r =
        run(
            writer("Ldev/writerfence/annotation/WriterFenced;"),
            DATABASE,
            "agent.propagation=false");

    assertRefused(r);
  }

  /** The file audit builds Byte Buddy at start and installs it: the other path to a transformer. */
  @Test
  void theClassIsRefusedToWhenByteBuddyIsInstalledAtStart() throws IOException {
    Path volume = Files.createTempDirectory("writer-fence-volume-");
    AgentJvm.Result r =
        run(
            writer(null),
            "fence.methods=" + WRITER + "#upload=huge",
            DATABASE,
            "audit.mode=log",
            "audit.paths=" + volume);

    assertRefused(r);
  }

  @Test
  void aClassLoadedBeforeTheAgentAttachesStaysUnfencedAndTheAgentSaysSo() throws IOException {
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .option("-Djdk.attach.allowAttachSelf=true")
            .option("-Dwriter-fence.fence.methods=" + WRITER + "#upload=huge")
            .option("-Dwriter-fence." + DATABASE)
            .classPath(TEST_CLASSES, writer(null))
            .main(UploadApp.class, WRITER, AgentJvm.AGENT_JAR.toString())
            .run();

    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout()).as(r.describe()).containsExactly(RAN, "upload returned");
    assertThat(agentLines(r))
        .as(r.describe())
        .singleElement()
        .asString()
        .contains(
            "could not instrument "
                + WRITER
                + ", already loaded so it cannot be refused: it keeps running unfenced");
  }

  private static void assertRefused(AgentJvm.Result r) {
    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout()).as(r.describe()).containsExactly(WRONG_NAME, WRONG_NAME);
    assertThat(agentLines(r))
        .as(r.describe())
        .singleElement()
        .asString()
        .startsWith("writer-fence agent " + AgentJvm.agentVersion() + ": ")
        .contains("refused to load " + WRITER + ", its fenced methods would run unfenced: ")
        .contains("Method too large");
  }

  /** The agent's lines about the writer class. */
  private static List<String> agentLines(AgentJvm.Result r) {
    return r.stderr().lines().filter(l -> l.contains(WRITER)).toList();
  }

  private static AgentJvm.Result run(Path writer, String... settings) {
    return AgentJvm.onThisJdk()
        .withAgent(settings)
        .classPath(TEST_CLASSES, writer)
        .main(UploadApp.class, WRITER)
        .run();
  }

  /** A class-path directory holding the huge writer, its method annotated or not. */
  private static Path writer(String annotation) throws IOException {
    Path classes = Files.createTempDirectory("writer-fence-huge-");
    new HugeClass(WRITER, "upload", null, annotation, RAN, false).writeInto(classes);
    return classes;
  }
}
