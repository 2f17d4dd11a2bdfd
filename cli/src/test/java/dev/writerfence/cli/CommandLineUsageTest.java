package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What the command line says about bad input, its usage and its version; nothing is started. */
class CommandLineUsageTest {

  @Test
  void badInputIsOneLineWithTheCommandToGetItsUsage() {
    Cli.Run run = Cli.run("status", "--jdbc-url", "mysql://127.0.0.1/app");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines())
        .containsExactly(
            "writer-fence: --jdbc-url 'mysql://127.0.0.1/app' is not allowed: a PostgreSQL JDBC URL"
                + " such as jdbc:postgresql://127.0.0.1:5432/app",
            "Try './writer-fence status --help'");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void picocliAndCoreMessagesGetTheSamePrefixOnce() {
    Cli.Run unknown =
        Cli.run(
            "status",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:1/x",
            "--jdbc=jdbc:postgresql://127.0.0.1/app");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err().lines().findFirst().orElseThrow())
        .isEqualTo("writer-fence: unknown option: '--jdbc=jdbc:postgresql://127.0.0.1/app'");
    assertThat(unknown.err().lines().toList())
        .last()
        .isEqualTo("Try './writer-fence status --help'");

    // core's own message starts "writer-fence: " already; it is not doubled
    Cli.Run badSchema =
        Cli.run(
            "status", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--schema", "Bad-Schema");
    assertThat(badSchema.exitCode()).isEqualTo(2);
    assertThat(badSchema.err().lines().findFirst().orElseThrow())
        .startsWith("writer-fence: --schema 'Bad-Schema' is not allowed");
    assertThat(badSchema.err()).doesNotContain("writer-fence: writer-fence:");
  }

  @Test
  void aMissingCommandOrSubcommandPointsToTheRightHelp() {
    Cli.Run none = Cli.run();
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err().lines())
        .containsExactly(
            "writer-fence: a command is required: status, schema, release, key or audit (or demo,"
                + " database)",
            "Try './writer-fence --help'");

    Cli.Run schema = Cli.run("schema");
    assertThat(schema.exitCode()).isEqualTo(2);
    assertThat(schema.err().lines())
        .containsExactly(
            "writer-fence: a subcommand is required: install or verify",
            "Try './writer-fence schema --help'");
  }

  @Test
  void aMistypedCommandGetsASuggestion() {
    Cli.Run run = Cli.run("statuss");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("writer-fence: ").contains("status");
    assertThat(run.err().lines().toList()).last().isEqualTo("Try './writer-fence --help'");
    assertThat(run.err().lines().count()).isLessThan(6);
  }

  @Test
  void jdbcUrlIsRequiredForStatusAndSchemaInstallInTheUsageAsInBehaviour() {
    for (List<String> command :
        List.of(
            List.of("status"),
            List.of("schema", "install"),
            List.of("schema", "verify"),
            List.of("release", "--force", "corpus"))) {
      List<String> commandName = command.stream().takeWhile(w -> !w.startsWith("-")).toList();
      String usage = Cli.run(concat(commandName, "--help")).out();
      assertThat(usage).as("%s", command).contains(" --jdbc-url=URL").doesNotContain("[--jdbc-url");

      Cli.Run missing = Cli.run(command.toArray(String[]::new));
      assertThat(missing.exitCode()).isEqualTo(2);
      assertThat(missing.err().lines())
          .containsExactly(
              "writer-fence: missing required option: '--jdbc-url=URL'",
              "Try './writer-fence " + String.join(" ", commandName) + " --help'");
    }
  }

  @Test
  void releaseWithoutForceIsRefusedSayingWhoReleasesWhat() {
    Cli.Run run = Cli.run("release", "corpus", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines().findFirst().orElseThrow())
        .startsWith("writer-fence: release needs --force: writers release their own leases")
        .contains("release --force NAME")
        .contains("owner of the lease table");
    assertThat(run.err().lines().toList()).last().isEqualTo("Try './writer-fence release --help'");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void versionIsTheJarsImplementationVersionElseADevelopmentBuild() {
    assertThat(WriterFenceCli.Version.line("0.1.0")).isEqualTo("writer-fence 0.1.0");
    assertThat(WriterFenceCli.Version.line(null)).isEqualTo("writer-fence (development build)");
    // the tests run from target/classes, which has no manifest (CliJarIT runs the packaged jar)
    Cli.Run run = Cli.run("--version");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out().strip()).isEqualTo("writer-fence (development build)");
  }

  @Test
  void badInputMessageHasOnePrefixAndStartsLowerCase() {
    assertThat(WriterFenceCli.badInputMessage("Missing required option: '--jdbc-url=URL'"))
        .isEqualTo("writer-fence: missing required option: '--jdbc-url=URL'");
    assertThat(WriterFenceCli.badInputMessage("writer-fence: role 'x y' is not allowed"))
        .isEqualTo("writer-fence: role 'x y' is not allowed");
    assertThat(WriterFenceCli.badInputMessage("URL is bad")).isEqualTo("writer-fence: URL is bad");
  }

  private static String[] concat(List<String> command, String more) {
    return Stream.concat(command.stream(), Stream.of(more)).toArray(String[]::new);
  }
}
