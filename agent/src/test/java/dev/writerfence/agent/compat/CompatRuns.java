package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The agent settings and the checks every compatibility run shares. */
final class CompatRuns {
  private static final Pattern KEY = Pattern.compile("\"key\"\\s*:\\s*\"([^\"]*)\"");

  private CompatRuns() {}

  /**
   * A directory the application writes files in, under {@code audit.paths}, and the audit's report
   * file beside it.
   *
   * @param volume the directory
   * @param report the report file
   */
  record Audit(Path volume, Path report) {
    /**
     * @return a fresh volume directory and a report file path beside it
     */
    static Audit create() {
      try {
        Path dir = Files.createTempDirectory("writer-fence-compat-");
        return new Audit(Files.createDirectory(dir.resolve("volume")), dir.resolve("report.json"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * The report lists exactly one unfenced write, of {@code outside.txt}: the files written under
     * a fence (the agent's, or the application's own) are absent.
     *
     * @param r the run, for messages
     */
    void assertOnlyOutsideIsUnfenced(AgentJvm.Result r) {
      String json;
      try {
        json = Files.readString(report);
      } catch (IOException e) {
        throw new AssertionError("no audit report at " + report + "\n" + r.describe(), e);
      }
      List<String> keys = new ArrayList<>();
      Matcher m = KEY.matcher(json);
      while (m.find()) {
        keys.add(m.group(1));
      }
      assertThat(keys)
          .as(json + "\n" + r.describe())
          .singleElement()
          .asString()
          .endsWith("outside.txt");
    }
  }

  /**
   * Settings that turn both features on: the {@code fencedWork} method of the given class fenced on
   * a fresh fence name against the embedded database, and the audit in {@code log} mode over the
   * given volume.
   *
   * @param fencedClass the class whose {@code fencedWork} method is fenced
   * @param audit where the application writes and the audit reports
   * @return {@code key=value} settings for {@link AgentJvm#withAgent}
   */
  static String[] bothFeatures(Class<?> fencedClass, Audit audit) {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    return new String[] {
      "fence.methods=" + fencedClass.getName() + "#fencedWork=" + FenceNames.random("compat"),
      "datasource.url=" + db.jdbcUrl(),
      "datasource.username=postgres",
      "audit.mode=log",
      "audit.paths=" + audit.volume(),
      "audit.report=" + audit.report()
    };
  }

  /**
   * The application ran to its end with its own output intact, the held-fence stack was the one in
   * the bootstrap class loader, the fenced method ran under the agent's fence and nothing after it
   * did, the audit listed only the write made outside it, and the agent reported no failure.
   *
   * @param r the run of {@link com.acme.legacy.CompatApp}
   * @param audit the run's volume and report
   */
  static void assertFencedAndClean(AgentJvm.Result r, Audit audit) {
    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout())
        .as(r.describe())
        .contains("stack-loader bootstrap", "inside-held true", "after-held false")
        .last()
        .isEqualTo("done");
    assertNoAgentTrouble(r);
    audit.assertOnlyOutsideIsUnfenced(r);
  }

  /**
   * @param r the run
   */
  static void assertNoAgentTrouble(AgentJvm.Result r) {
    assertThat(r.stderr())
        .as(r.describe())
        .contains("writer-fence agent ")
        .doesNotContain("could not instrument")
        .doesNotContain("refused to load")
        .doesNotContain("fenced nothing")
        .doesNotContain("Exception")
        .doesNotContain("sun.misc.Unsafe");
  }
}
