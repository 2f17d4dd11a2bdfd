package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent settings and the checks every compatibility run shares. */
final class CompatRuns {
  private CompatRuns() {}

  /**
   * Settings that turn the agent on: the audit in {@code log} mode, which places the held-fence
   * stack in the bootstrap class loader and instruments storage clients.
   *
   * @return {@code key=value} settings for {@link AgentJvm#withAgent}
   */
  static String[] agentOn() {
    return new String[] {"audit.mode=log"};
  }

  /**
   * The application ran to its end with its own output intact, the held-fence stack was the one in
   * the bootstrap class loader, and the agent reported no failure.
   *
   * @param r the run of {@link com.acme.legacy.CompatApp}
   */
  static void assertStartedCleanly(AgentJvm.Result r) {
    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout())
        .as(r.describe())
        .contains("stack-loader bootstrap", "after-held false")
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
        .doesNotContain("Exception")
        .doesNotContain("sun.misc.Unsafe");
  }
}
