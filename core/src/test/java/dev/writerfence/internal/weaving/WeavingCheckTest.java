package dev.writerfence.internal.weaving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.annotation.processing.FencedMethodIndexer;
import dev.writerfence.bootstrap.FencingAgent;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The weaving check on an index it is given, in this JVM, where nothing weaves: what counts as a
 * gap, what as a stale line, and when the check stands down for the agent. The forked runs with
 * AspectJ's weaver are writer-fence-aspectj's {@code StartUpWeavingCheckTest}.
 */
class WeavingCheckTest {
  @TempDir Path dir;

  /** An annotated writer that nothing in this JVM weaves. */
  static class Unwoven {
    @WriterFenced("corpus")
    void write() {}
  }

  @Test
  void anUnwovenMethodIsAGapAndLinesOfAnotherBuildAreStaleUntilAFencingAgentTakesOver()
      throws IOException {
    String unwoven = Unwoven.class.getName() + "#write()";
    ClassLoader loader =
        withIndex(
            unwoven + "\n",
            "org.example.gone.Writer#put()\n",
            Unwoven.class.getName() + "#nosuch(int)\n");

    WeavingCheck.Result result = WeavingCheck.run(loader);

    assertThat(result.gaps())
        .singleElement(InstanceOfAssertFactories.STRING)
        .startsWith("@WriterFenced " + unwoven + " would run unfenced: no weaving in this JVM");
    assertThat(result.stale())
        .satisfiesExactlyInAnyOrder(
            s -> assertThat(s).startsWith("org.example.gone.Writer#put(): its class cannot"),
            s -> assertThat(s).endsWith("declares no such method"));
    assertThat(result.checked()).isEqualTo(3);
    assertThatThrownBy(() -> WeavingCheck.atStartup(loader, "fail"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(unwoven)
        .hasMessageContaining("the fence is refused");

    FencingAgent.fencesAnnotatedMethods(); // what an agent with its fence configured says

    assertThat(WeavingCheck.run(loader).gaps()).isEmpty();
  }

  @Test
  void aLineThatIsNotClassHashMethodIsRefusedNamingIt() throws IOException {
    ClassLoader loader = withIndex("org.example.Writer.put\n");

    assertThatThrownBy(() -> WeavingCheck.run(loader))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("line 'org.example.Writer.put'")
        .hasMessageContaining("is not class#method(parameter types)");
  }

  @Test
  void aModeOutsideTheThreeIsRefusedNamingIt() {
    assertThatThrownBy(() -> WeavingCheck.atStartup(getClass().getClassLoader(), "loud"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("writer-fence: weaving.check 'loud' is not allowed: fail, warn or off");
  }

  /** A loader that sees one index per text, each in a directory of its own, over this test's. */
  private ClassLoader withIndex(String... indexes) throws IOException {
    URL[] urls = new URL[indexes.length];
    for (int i = 0; i < indexes.length; i++) {
      Path root = dir.resolve("build" + i);
      Path index = root.resolve(FencedMethodIndexer.INDEX);
      Files.createDirectories(index.getParent());
      Files.writeString(index, indexes[i]);
      urls[i] = root.toUri().toURL();
    }
    return new URLClassLoader(urls, getClass().getClassLoader());
  }
}
