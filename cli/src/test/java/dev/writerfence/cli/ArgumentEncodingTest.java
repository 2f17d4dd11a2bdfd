package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.testing.ForkedJvm;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParameterException;

/**
 * A fence name with non-ASCII characters under a locale whose encoding is not UTF-8: the JVM reads
 * each of their bytes as U+FFFD, and the command line refuses the mangled name rather than compute
 * or change anything from it. The commands run in forked JVMs, under the locale set in their
 * environment, with the name's UTF-8 bytes on their real command line.
 */
class ArgumentEncodingTest {
  /** {@code bucket:ümlaut}; the escape keeps this source file ASCII. */
  private static final String NAME = "bucket:\u00fcmlaut";

  /** What a JVM under an ASCII locale reads for it: the two bytes of ü, each U+FFFD. */
  private static final String MANGLED = "bucket:\\uFFFD\\uFFFDmlaut";

  @TempDir Path dir;

  @Test
  void underLangCKeyRefusesTheNameItCouldNotDecodeAndSaysHowToRunIt() throws Exception {
    Forked run = fork(Map.of("LANG", "C"), "key", NAME);

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.out()).as("no key printed").isEmpty();
    assertThat(run.err().lines().toList())
        .first()
        .asString()
        .startsWith("writer-fence: NAME|ARG '" + MANGLED + "' lost its non-ASCII characters:")
        .contains("decoded the command line as ANSI_X3.4-1968, the encoding of LANG=C, not UTF-8")
        .contains("Nothing was done")
        .endsWith("Run it under a UTF-8 locale: LANG=C.UTF-8 ./writer-fence key ...");
    assertThat(run.err()).contains("Try './writer-fence key --help'");
  }

  @Test
  void underLcAllCReleaseRefusesTheNameBeforeConnecting() throws Exception {
    // LC_ALL wins over LANG, so the way out is LC_ALL too. Nothing listens on the URL's port: the
    // refusal comes before any connection is tried.
    Forked run =
        fork(
            Map.of("LC_ALL", "C", "LANG", "C.UTF-8"),
            "release",
            "--force",
            NAME,
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:9/none");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains("writer-fence: NAME '" + MANGLED + "' lost its non-ASCII characters")
        .contains("the encoding of LC_ALL=C, not UTF-8")
        .contains("LC_ALL=C.UTF-8 ./writer-fence release ...")
        .doesNotContain("Connection");
  }

  @Test
  void underLangCTheTemplateArgumentsOfKeySchemeAreCheckedToo() throws Exception {
    Forked run =
        fork(Map.of("LANG", "C"), "key", "--scheme", "vibey.integrate:{0}:{1}", NAME, "42");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).contains("NAME|ARG '" + MANGLED + "'");
  }

  @Test
  void underAUtf8LocaleKeyPrintsTheDocumentedKeyOfTheName() throws Exception {
    Forked run = fork(Map.of("LANG", "C.UTF-8"), "key", NAME);

    assertThat(run.exitCode()).as(run.err()).isZero();
    long key = Long.parseLong(run.out().strip());
    assertThat(key).isEqualTo(AdvisoryKeys.keyOf(NAME)).isEqualTo(documentedKey(NAME));
    // the value cli/README.md shows for it
    assertThat(key).isEqualTo(-5236098659239742243L);
    assertThat(key).isNotEqualTo(AdvisoryKeys.keyOf("bucket:\uFFFD\uFFFDmlaut"));
  }

  @Test
  void anAsciiNameIsUnaffectedByLangCAndGivesTheDocumentedKeyOfCorpus() throws Exception {
    // docs/backends.md: AdvisoryKeys.keyOf("corpus") is 3457266040830166800
    Forked run = fork(Map.of("LANG", "C"), "key", "corpus");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().strip())
        .isEqualTo("3457266040830166800")
        .isEqualTo(Long.toString(documentedKey("corpus")));
  }

  @Test
  void theMessageNamesTheCLocaleWhenNoLocaleVariableIsSetAndNothingIsRefusedUnderUtf8() {
    ArgumentEncoding ascii = new ArgumentEncoding("ANSI_X3.4-1968", Map.of());
    assertThat(ascii.message("NAME", "a\uFFFDb", "writer-fence key"))
        .startsWith("NAME 'a\\uFFFDb' lost its non-ASCII characters")
        .contains("the encoding of the C locale (none of LC_ALL, LC_CTYPE, LANG is set)")
        .endsWith("LANG=C.UTF-8 ./writer-fence key ...");
    // LC_CTYPE set: LANG would not win over it, LC_ALL does
    assertThat(
            new ArgumentEncoding("ANSI_X3.4-1968", Map.of("LC_CTYPE", "POSIX"))
                .message("NAME", "\uFFFD", "writer-fence key"))
        .contains("the encoding of LC_CTYPE=POSIX")
        .endsWith("LC_ALL=C.UTF-8 ./writer-fence key ...");

    var parsed = WriterFenceCli.commandLine().parseArgs("key", "a\uFFFDb");
    // Under UTF-8 a U+FFFD is what the caller passed: nothing to refuse.
    new ArgumentEncoding("UTF-8", Map.of("LANG", "C.UTF-8")).check(parsed);
    new ArgumentEncoding("utf8", Map.of()).check(parsed);
    assertThatThrownBy(() -> ascii.check(parsed))
        .isInstanceOf(ParameterException.class)
        .hasMessageStartingWith("NAME|ARG 'a\\uFFFDb'");
  }

  @Test
  void theCommandLineEncodingIsTheLaunchersSunJnuEncodingFirst() {
    Properties p = new Properties();
    p.setProperty("file.encoding", "UTF-8");
    assertThat(ArgumentEncoding.commandLineEncoding(p)).isEqualTo("UTF-8");
    p.setProperty("native.encoding", "ISO-8859-1");
    assertThat(ArgumentEncoding.commandLineEncoding(p)).isEqualTo("ISO-8859-1");
    p.setProperty("sun.jnu.encoding", "ANSI_X3.4-1968");
    assertThat(ArgumentEncoding.commandLineEncoding(p)).isEqualTo("ANSI_X3.4-1968");
    assertThat(ArgumentEncoding.commandLineEncoding(new Properties())).isNull();
  }

  /** The key as docs/backends.md defines it: SHA-256 of 'writer-fence:' + NAME, 8 bytes, signed. */
  private static long documentedKey(String name) throws Exception {
    byte[] hash =
        MessageDigest.getInstance("SHA-256")
            .digest(("writer-fence:" + name).getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(hash, 0, 8).getLong();
  }

  /** What a forked command line printed, and its exit status. */
  private record Forked(int exitCode, String out, String err) {}

  /**
   * Runs the command line in a JVM of its own under {@code locale} (every other locale variable
   * removed). The arguments are written, as UTF-8 bytes, into a shell script that starts the JVM:
   * passed through this JVM's process API they would be encoded in this JVM's own locale first.
   */
  private Forked fork(Map<String, String> locale, String... args) throws Exception {
    StringBuilder script = new StringBuilder("exec \"$JAVA\" -cp \"$CP\" ");
    script.append(WriterFenceCli.class.getName());
    for (String a : args) {
      script.append(" '").append(a.replace("'", "'\\''")).append('\'');
    }
    script.append('\n');
    Path file = Files.createTempFile(dir, "cli-", ".sh");
    Files.write(file, script.toString().getBytes(StandardCharsets.UTF_8));

    Path out = dir.resolve(file.getFileName() + ".out");
    Path err = dir.resolve(file.getFileName() + ".err");
    ProcessBuilder pb =
        new ProcessBuilder(new ArrayList<>(List.of("sh", file.toString())))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_") || k.startsWith("JAVA_"));
    env.remove("JDK_JAVA_OPTIONS");
    env.putAll(locale);
    env.put("JAVA", ForkedJvm.javaBinary());
    env.put("CP", ForkedJvm.testClassPath());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the forked command line exited").isTrue();
    // Under LANG=C the JVM prints ASCII only (the message escapes U+FFFD): UTF-8 reads either.
    return new Forked(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
