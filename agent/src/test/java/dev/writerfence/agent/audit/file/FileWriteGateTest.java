package dev.writerfence.agent.audit.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.bootstrap.AuditGate;
import dev.writerfence.bootstrap.FileWriteGate;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which file operations the bootstrap gate passes on to the audit, and the prefix setting. */
class FileWriteGateTest {
  private final List<String> judged = new ArrayList<>();

  @BeforeEach
  void install() {
    FileWriteGate.configure(
        new String[] {"/srv/vol"}, new String[] {"/srv/vol/report.json"}, "/srv");
    AuditGate.install(
        new AuditGate.Sink() {
          @Override
          public String requiredFence(String client) {
            return null;
          }

          @Override
          public void unfenced(
              String client, String operation, Object target, String bucket, String key) {
            judged.add(client + " " + operation + " " + key);
          }
        });
  }

  @AfterEach
  void uninstall() {
    AuditGate.install(null);
    FileWriteGate.configure(null, null, "/");
  }

  @Test
  void pathsUnderAPrefixAreJudgedAsAbsoluteNormalizedText() {
    pass("delete", "/srv/vol/data.mdb");
    pass("delete", "vol/lock.mdb"); // relative to the working directory /srv
    pass("delete", Path.of("/srv/other/../vol/x"));
    pass("createDirectory", "/srv/vol");

    assertThat(judged)
        .containsExactly(
            "file delete /srv/vol/data.mdb",
            "file delete /srv/vol/lock.mdb",
            "file delete /srv/vol/x",
            "file createDirectory /srv/vol");
  }

  @Test
  void siblingsEscapesAndTheAgentsOwnFilesAreNot() {
    assertThat(FileWriteGate.enterPath("delete", "/srv/vol2/x")).isFalse();
    assertThat(FileWriteGate.enterPath("delete", "/srv/vol/../etc/x")).isFalse();
    assertThat(FileWriteGate.enterPath("move", "/srv/vol/report.json123.tmp")).isFalse();
    assertThat(FileWriteGate.enterPath("delete", null)).isFalse();
    assertThat(judged).isEmpty();
  }

  /** Creating a directory that exists changes nothing; creating a new one is a write. */
  @Test
  void creatingAnExistingDirectoryIsNoWrite(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    FileWriteGate.configure(new String[] {dir.toString()}, null, "/");
    assertThat(FileWriteGate.enterPath("createDirectory", dir)).isFalse();
    assertThat(FileWriteGate.enterPath("mkdir", dir.toString())).isFalse();
    pass("createDirectory", dir.resolve("new"));
    assertThat(judged).containsExactly("file createDirectory " + dir.resolve("new"));
  }

  /** An excluded report path covers the report and its temporary siblings, nothing else. */
  @Test
  void theReportPathOpensNoHoleForFilesThatMerelyStartWithIt() {
    pass("delete", "/srv/vol/report.json.bak");
    pass("delete", "/srv/vol/report.json/inner");
    pass("delete", "/srv/vol/report.json12x.tmp");
    assertThat(FileWriteGate.enterPath("delete", "/srv/vol/report.json")).isFalse();
    assertThat(judged)
        .containsExactly(
            "file delete /srv/vol/report.json.bak",
            "file delete /srv/vol/report.json/inner",
            "file delete /srv/vol/report.json12x.tmp");
  }

  @Test
  void opensCountOnlyWhenTheyWrite() {
    assertThat(FileWriteGate.enterOpen("newByteChannel", "/srv/vol/a", Set.of())).isFalse();
    assertThat(
            FileWriteGate.enterOpen(
                "newByteChannel", "/srv/vol/a", Set.of(StandardOpenOption.READ)))
        .isFalse();
    assertThat(FileWriteGate.enterRandomAccess("RandomAccessFile", "/srv/vol/a", 1)).isFalse();
    FileWriteGate.exit(
        FileWriteGate.enterOpen(
            "newFileChannel",
            "/srv/vol/a",
            Set.of(StandardOpenOption.READ, StandardOpenOption.APPEND)));
    FileWriteGate.exit(FileWriteGate.enterRandomAccess("RandomAccessFile", "/srv/vol/b", 2));

    assertThat(judged)
        .containsExactly("file newFileChannel /srv/vol/a", "file RandomAccessFile /srv/vol/b");
  }

  @Test
  void aMoveOutOfThePrefixCounts() {
    FileWriteGate.exit(FileWriteGate.enterPaths("move", "/srv/vol/a", "/tmp/a"));

    assertThat(judged).containsExactly("file move /srv/vol/a");
  }

  @Test
  void settingMakesPrefixesAbsoluteAndNamesAnEmptyEntry() {
    assertThat(FileWritesAudit.parse("/srv/vol/, /data/index"))
        .containsExactly("/srv/vol", "/data/index");
    assertThat(FileWritesAudit.parse("rel"))
        .containsExactly(Path.of("rel").toAbsolutePath().toString());
    assertThat(FileWritesAudit.parse(" ")).isEmpty();
    assertThatThrownBy(() -> FileWritesAudit.parse("/srv/vol,,/data"))
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageContaining("audit.paths '/srv/vol,,/data' has an empty entry");
  }

  private static void pass(String operation, Object path) {
    boolean entered = FileWriteGate.enterPath(operation, path);
    assertThat(entered).as("%s", path).isTrue();
    FileWriteGate.exit(entered);
  }
}
