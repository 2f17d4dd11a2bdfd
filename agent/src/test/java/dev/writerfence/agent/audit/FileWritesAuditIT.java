package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.example.clients.FileWritesApp;
import org.example.clients.LinkWritesApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File writes under {@code audit.paths}: {@link FileWritesApp} in its own JVM with the real agent,
 * one write per JDK write path family under a temporary directory, one outside it, one fenced, and
 * reads through every family. The report file itself lies under the prefix: the agent's own writes
 * must never be listed.
 */
class FileWritesAuditIT {
  /** The operation each unfenced write is reported under, by file name. */
  private static final Map<String, String> UNFENCED = new LinkedHashMap<>();

  static {
    UNFENCED.put("files-write", "newByteChannel");
    UNFENCED.put("byte-channel", "newByteChannel");
    UNFENCED.put("file-channel", "newFileChannel");
    UNFENCED.put("async-channel", "newAsynchronousFileChannel");
    UNFENCED.put("create-directory", "createDirectory");
    UNFENCED.put("create-file", "newByteChannel");
    UNFENCED.put("copy", "copy");
    UNFENCED.put("move", "move");
    UNFENCED.put("delete", "delete");
    UNFENCED.put("set-attribute", "setAttribute");
    UNFENCED.put("set-times", "setTimes");
    UNFENCED.put("set-permissions", "setPermissions");
    UNFENCED.put("file-output-stream", "FileOutputStream");
    UNFENCED.put("random-access-rw", "RandomAccessFile");
    UNFENCED.put("io-delete", "delete");
    UNFENCED.put("io-rename", "renameTo");
    UNFENCED.put("io-mkdir", "mkdir");
    UNFENCED.put("io-create", "createNewFile");
    UNFENCED.put("io-set-last-modified", "setLastModified");
  }

  @TempDir Path dir;

  @Test
  void logListsEveryJdkWritePathUnderThePrefixAndNothingElse() throws Exception {
    assertListsEveryJdkWritePath(ForkedJvm.javaBinary());
  }

  @Test
  void logListsEveryJdkWritePathOnJava25() throws Exception {
    Path java25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    assumeTrue(Files.isExecutable(java25), "Temurin 25 is not installed at " + java25);
    assertListsEveryJdkWritePath(java25.toString());
  }

  private void assertListsEveryJdkWritePath(String java) throws Exception {
    Path in = Files.createDirectory(dir.resolve("volume"));
    Path out = Files.createDirectory(dir.resolve("elsewhere"));
    Path report = dir.resolve("volume").resolve("report.json"); // inside the prefix on purpose

    ClientApp app = run(java, in, out, report, "log");

    for (String label : UNFENCED.keySet()) {
      assertThat(app.output()).as(app.errors()).contains("wrote " + label);
    }
    assertThat(app.output()).contains("wrote outside", "wrote fenced", "wrote reads");
    List<JsonNode> writes = app.writes();
    assertThat(writes)
        .as(app.report().toPrettyString())
        .extracting(
            w -> w.get("client").asText(), w -> callSiteMethod(w), w -> w.get("operation").asText())
        .containsExactlyInAnyOrderElementsOf(
            UNFENCED.entrySet().stream()
                .map(e -> tuple("file", methodOf(e.getKey()), e.getValue()))
                .toList());
    for (JsonNode w : writes) {
      assertThat(w.get("key").asText()).startsWith(in.toString() + "/");
      assertThat(w.get("count").asLong()).isEqualTo(1);
    }
    app.assertEachWriteFrom(FileWritesApp.class.getName(), 0);
  }

  @Test
  void enforceRefusesEveryJdkWritePathBeforeTheFileChanges() throws Exception {
    Path in = Files.createDirectory(dir.resolve("volume"));
    Path out = Files.createDirectory(dir.resolve("elsewhere"));
    Path report = dir.resolve("enforce.json");

    ClientApp app = run(ForkedJvm.javaBinary(), in, out, report, "enforce");

    assertThat(app.output()).contains("wrote outside", "wrote fenced");
    for (String label :
        List.of(
            "files-write",
            "byte-channel",
            "file-channel",
            "async-channel",
            "create-directory",
            "create-file",
            "copy",
            "file-output-stream",
            "random-access-rw",
            "io-mkdir",
            "io-create")) {
      assertThat(app.output()).as(app.errors()).contains("refused " + label);
      assertThat(in.resolve(label)).as(label).doesNotExist();
    }
    assertThat(in.resolve("fenced")).exists();
    assertThat(out.resolve("outside")).exists();
    app.assertEachWriteFrom(FileWritesApp.class.getName(), 1);
  }

  @Test
  void enforceRefusesWritesThroughADirectoryLinkOrAFileLinkFromOutside() throws Exception {
    Path in = Files.createDirectory(dir.resolve("volume"));
    Path out = Files.createDirectory(dir.resolve("elsewhere"));
    Path target = Files.writeString(in.resolve("linked-file"), "original");
    Path dirLink = Files.createSymbolicLink(out.resolve("volume-link"), in);
    Path fileLink = Files.createSymbolicLink(out.resolve("file-link"), target);

    ClientApp app =
        ClientApp.run(
            LinkWritesApp.class.getName(),
            dir.resolve("links.json"),
            List.of("audit.mode=enforce", "audit.paths=" + in),
            EmbeddedDatabase.get().jdbcUrl(),
            FenceNames.random("links"),
            dirLink.toString(),
            fileLink.toString());

    assertThat(app.output()).as(app.errors()).contains("wrote fenced");
    for (String label : List.of("dir-link", "dir-link-stream", "file-link", "file-link-stream")) {
      assertThat(app.output()).as(app.errors()).contains("refused " + label);
    }
    assertThat(in.resolve("fenced")).exists();
    assertThat(in.resolve("dir-link")).doesNotExist();
    assertThat(in.resolve("dir-link-stream")).doesNotExist();
    assertThat(target).hasContent("original");
    assertThat(app.writes())
        .extracting(w -> w.get("key").asText())
        .as("reported by the real path, inside the audited folder")
        .allSatisfy(key -> assertThat(key).startsWith(in.toRealPath() + "/"));
    app.assertEachWriteFrom(LinkWritesApp.class.getName(), 1);
  }

  private ClientApp run(String java, Path in, Path out, Path report, String mode) throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    return ClientApp.run(
        java,
        FileWritesApp.class.getName(),
        report,
        List.of("audit.mode=" + mode, "audit.paths=" + in),
        db.jdbcUrl(),
        FenceNames.random("files"),
        in.toString(),
        out.toString());
  }

  private static String callSiteMethod(JsonNode write) {
    String site = write.get("call_site").asText();
    String method = site.substring(0, site.indexOf('('));
    return method.substring(method.lastIndexOf('.') + 1);
  }

  /** The app's method for a label: {@code io-set-last-modified} is {@code ioSetLastModified}. */
  private static String methodOf(String label) {
    StringBuilder b = new StringBuilder();
    boolean upper = false;
    for (char c : label.toCharArray()) {
      if (c == '-') {
        upper = true;
      } else {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    String m = b.toString();
    return m.equals("randomAccessRw") ? "randomAccess" : m;
  }
}
