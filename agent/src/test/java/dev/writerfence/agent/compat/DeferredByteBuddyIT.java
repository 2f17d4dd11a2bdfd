package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.HelloApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Byte Buddy is built only when a class that a feature might instrument loads (issue #3): a JVM
 * that loads none never builds it; the fenced class's loading builds it; the file audit, which must
 * retransform the JDK's classes, builds it at start, before {@code main}'s class loads; carrying
 * holds waits for the first hold, unless Byte Buddy is built at start anyway. Seen through the
 * JVM's class-loading log.
 */
class DeferredByteBuddyIT {
  /** Byte Buddy's agent builder, as relocated in the agent jar: what building Byte Buddy loads. */
  private static final String BUILDER =
      "dev.writerfence.agent.shaded.net.bytebuddy.agent.builder.AgentBuilder$Default ";

  private static final String DATABASE = "datasource.url=jdbc:postgresql://127.0.0.1:9/none";
  private static final Path TEST_CLASSES = Path.of("target", "test-classes");

  /**
   * Propagation retransforms the JDK's executors and threads: at the first hold, or at start when
   * Byte Buddy is built then anyway.
   */
  private static final String NO_PROPAGATION = "agent.propagation=false";

  @Test
  void aJvmLoadingNoCandidateClassNeverBuildsByteBuddy() throws IOException {
    List<String> loaded =
        loadedClasses("fence.methods=com.acme.legacy.NeverLoaded#upload=f", NO_PROPAGATION);

    assertThat(loaded).noneMatch(l -> l.contains(BUILDER));
    assertThat(loaded).anyMatch(l -> l.contains(HelloApp.class.getName() + " "));
  }

  @Test
  void theFencedClassBuildsByteBuddyWhenItLoads() throws IOException {
    List<String> loaded =
        loadedClasses("fence.methods=" + HelloApp.class.getName() + "#upload=f", NO_PROPAGATION);

    int builder = indexOf(loaded, BUILDER);
    assertThat(builder).isNotNegative();
    assertThat(builder)
        .isGreaterThan(indexOf(loaded, "dev.writerfence.agent.DeferredTransformer "));
  }

  @Test
  void propagationAloneWaitsForTheFirstHold() throws IOException {
    List<String> loaded = loadedClasses("fence.methods=com.acme.legacy.NeverLoaded#upload=f");

    assertThat(loaded)
        .as("nothing is ever held here, so nothing is carried and Byte Buddy is never built")
        .noneMatch(l -> l.contains(BUILDER));
    assertThat(loaded).anyMatch(l -> l.contains(HelloApp.class.getName() + " "));
  }

  @Test
  void propagationWithTheFileAuditIsBuiltAtStart() throws IOException {
    Path volume = Files.createTempDirectory("writer-fence-volume-");
    List<String> loaded =
        loadedClasses(
            "fence.methods=com.acme.legacy.NeverLoaded#upload=f", "audit.paths=" + volume);

    int builder = indexOf(loaded, BUILDER);
    assertThat(builder).isNotNegative();
    assertThat(builder).isLessThan(indexOf(loaded, HelloApp.class.getName() + " "));
  }

  @Test
  void theFileAuditBuildsByteBuddyAtStart() throws IOException {
    Path volume = Files.createTempDirectory("writer-fence-volume-");
    List<String> loaded =
        loadedClasses(
            "fence.methods=com.acme.legacy.NeverLoaded#upload=f",
            "audit.paths=" + volume,
            NO_PROPAGATION);

    int builder = indexOf(loaded, BUILDER);
    assertThat(builder).isNotNegative();
    assertThat(builder).isLessThan(indexOf(loaded, HelloApp.class.getName() + " "));
  }

  /** Runs {@link HelloApp} with both features on and answers the JVM's class-loading log. */
  private static List<String> loadedClasses(String... settings) throws IOException {
    Path log = Files.createTempFile("writer-fence-classes-", ".log");
    String[] all = new String[settings.length + 2];
    all[0] = "audit.mode=log";
    all[1] = DATABASE;
    System.arraycopy(settings, 0, all, 2, settings.length);
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .withAgent(all)
            .option("-Xlog:class+load:file=" + log.toAbsolutePath())
            .classPath(TEST_CLASSES)
            .main(HelloApp.class)
            .run();
    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout()).as(r.describe()).containsExactly("hello, 0 classes loaded");
    List<String> lines = Files.readAllLines(log);
    Files.delete(log);
    return lines;
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }
}
