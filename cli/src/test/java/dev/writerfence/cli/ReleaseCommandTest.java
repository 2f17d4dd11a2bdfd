package dev.writerfence.cli;

import static dev.writerfence.cli.OpsCasesTest.SCHEMA;
import static dev.writerfence.cli.OpsCasesTest.forceRelease;
import static dev.writerfence.cli.OpsCasesTest.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code release --force}: what it refuses, what it leaves alone, what it clears. */
class ReleaseCommandTest {
  private static final EmbeddedDatabase db = EmbeddedDatabase.get();

  /** Holders in this JVM; no renewal, so a lease stays exactly as acquired. */
  private final WriterFence fence =
      WriterFence.builder(db.dataSource()).schema(SCHEMA).withoutRenewal().build();

  @BeforeAll
  static void installSchema() {
    OpsCasesTest.installSchema();
  }

  @AfterEach
  void closeFence() {
    fence.close();
  }

  @Test
  void withYesItClearsWithoutAskingAndTheOldHoldersReleaseThenChangesNothing() {
    String name = FenceNames.random("force-yes");
    FenceLease old =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("upload")
                    .ttl(Duration.ofSeconds(600))
                    .build())
            .orElseThrow();

    Cli.Run run = Cli.runAnswering("", forceRelease(name, "--yes"));

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).doesNotContain("[y/N]").contains("cleared the lease on '" + name + "'");
    assertThat(row(name).hasHolder()).isFalse();
    assertThat(fence.release(old)).as("the old holder no longer holds it").isFalse();

    FenceLease next =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("pull_sync")
                    .ttl(Duration.ofSeconds(600))
                    .build())
            .orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
    Cli.Run again = Cli.runAnswering("", forceRelease(name, "--yes"));
    assertThat(again.exitCode()).isZero();
    assertThat(row(name).hasHolder()).isFalse();
    assertThat(row(name).fencingToken()).isEqualTo(next.fencingToken());
  }

  @Test
  void aFreeFenceIsReportedAndNothingChanges() {
    String name = FenceNames.random("force-free");
    FenceLease lease =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("write-back")
                    .ttl(Duration.ofSeconds(600))
                    .build())
            .orElseThrow();
    assertThat(fence.release(lease)).isTrue();
    OpsCasesTest.Row before = row(name);

    Cli.Run run = Cli.runAnswering("y\n", forceRelease(name));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .startsWith(
            "fence '"
                + name
                + "' is free (last holder 'write-back@"
                + HolderLabel.instance()
                + "', fencing token "
                + lease.fencingToken())
        .contains("nothing to clear")
        .doesNotContain("[y/N]");
    assertThat(row(name)).isEqualTo(before);
  }

  @Test
  void anUnknownFenceNameIsReportedAndNothingChanges() {
    String name = FenceNames.random("force-unknown");

    Cli.Run run = Cli.runAnswering("y\n", forceRelease(name, "--yes"));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("writer-fence release: there is no fence named '" + name + "'")
        .contains("nothing changed");
    assertThat(
            db.queryValue(
                Long.class, "SELECT count(*) FROM " + SCHEMA + ".lease WHERE fence_name = ?", name))
        .isZero();
  }

  @Test
  void noAnswerIsNo() {
    String name = FenceNames.random("force-eof");
    FenceLease lease =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("upload")
                    .ttl(Duration.ofSeconds(600))
                    .build())
            .orElseThrow();
    OpsCasesTest.Row before = row(name);

    Cli.Run run = Cli.runAnswering("", forceRelease(name));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("[y/N]").contains("no answer (end of input); use --yes");
    assertThat(row(name)).isEqualTo(before);
    assertThat(fence.release(lease)).isTrue();
  }

  @Test
  void aLeaseThatChangedWhileTheQuestionWasOpenIsNotCleared() {
    String name = FenceNames.random("force-changed");
    FenceLease shown =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("upload")
                    .ttl(Duration.ofSeconds(600))
                    .build())
            .orElseThrow();
    long[] newToken = new long[1];
    // The answer arrives only after the shown holder released and another writer acquired.
    InputStream answer =
        new InputStream() {
          private InputStream yes;

          @Override
          public int read() throws IOException {
            if (yes == null) {
              assertThat(fence.release(shown)).isTrue();
              newToken[0] =
                  fence
                      .tryAcquire(
                          FenceRequest.builder(name)
                              .holderLabel("pull_sync")
                              .ttl(Duration.ofSeconds(600))
                              .build())
                      .orElseThrow()
                      .fencingToken();
              yes = new ByteArrayInputStream("y\n".getBytes(Charset.defaultCharset()));
            }
            return yes.read();
          }
        };

    Cli.Run run = Cli.runAnswering(answer, forceRelease(name));

    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.out())
        .contains("(fencing token " + shown.fencingToken() + ")? [y/N]")
        .contains(
            "not cleared: the lease changed after it was shown (now: holder 'pull_sync@"
                + HolderLabel.instance()
                + "', fencing token "
                + newToken[0]
                + ", state held)");
    OpsCasesTest.Row now = row(name);
    assertThat(now.hasHolder()).isTrue();
    assertThat(now.fencingToken()).isEqualTo(newToken[0]).isGreaterThan(shown.fencingToken());
    assertThat(now.label()).isEqualTo("pull_sync@" + HolderLabel.instance());
  }

  @Test
  void aBadFenceNameIsBadInputAndNothingIsRead() {
    Cli.Run run =
        Cli.run("release", "--force", "bad\tname", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines().findFirst().orElseThrow())
        .startsWith("writer-fence: fence name 'bad")
        .endsWith(
            "is not allowed: 1 to 200 characters, no control or format characters, no"
                + " leading or trailing white space");
  }

  @Test
  void beforeSchemaInstallItSaysTheSchemaIsNotInstalled() {
    Cli.Run run =
        Cli.run(
            "release",
            "--force",
            "corpus",
            "--jdbc-url",
            db.jdbcUrl(),
            "--user",
            "postgres",
            "--schema",
            "cli_never_installed",
            "--yes");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith(
            "writer-fence release: the writer-fence schema 'cli_never_installed' is not installed");
  }
}
