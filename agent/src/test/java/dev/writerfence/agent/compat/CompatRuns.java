package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;

/** The agent settings and the checks every compatibility run shares. */
final class CompatRuns {
  private CompatRuns() {}

  /**
   * Settings that turn both features on: the {@code fencedWork} method of the given class fenced on
   * a fresh fence name against the embedded database, and the audit in {@code log} mode.
   *
   * @param fencedClass the class whose {@code fencedWork} method is fenced
   * @return {@code key=value} settings for {@link AgentJvm#withAgent}
   */
  static String[] bothFeatures(Class<?> fencedClass) {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    return new String[] {
      "fence.methods=" + fencedClass.getName() + "#fencedWork=" + FenceNames.random("compat"),
      "datasource.url=" + db.jdbcUrl(),
      "datasource.username=postgres",
      "audit.mode=log"
    };
  }

  /**
   * The application ran to its end with its own output intact, the held-fence stack was the one in
   * the bootstrap class loader, the fenced method ran under the agent's fence and nothing after it
   * did, and the agent reported no failure.
   *
   * @param r the run of {@link com.acme.legacy.CompatApp}
   */
  static void assertFencedAndClean(AgentJvm.Result r) {
    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout())
        .as(r.describe())
        .contains("stack-loader bootstrap", "inside-held true", "after-held false")
        .last()
        .isEqualTo("done");
    assertNoAgentTrouble(r);
  }

  /**
   * @param r the run
   */
  static void assertNoAgentTrouble(AgentJvm.Result r) {
    assertThat(r.stderr())
        .as(r.describe())
        .contains("writer-fence agent ")
        .doesNotContain("could not instrument")
        .doesNotContain("fenced nothing")
        .doesNotContain("Exception")
        .doesNotContain("sun.misc.Unsafe");
  }
}
