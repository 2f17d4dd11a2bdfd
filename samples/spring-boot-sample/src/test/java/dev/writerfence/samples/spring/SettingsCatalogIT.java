package dev.writerfence.samples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.samples.spring.everykey.EveryKeyApp;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every mode in one JVM on one set of settings: {@link EveryKeyApp} as a Boot jar with the real
 * agent jar (fencing and audit both on), the starter, and the process fence's parser, given every
 * key of the settings catalog as a {@code -Dwriter-fence.*} system property with the catalog's
 * example value. A key that one mode refused would end the JVM (the agent's premain), fail the
 * start-up (Spring) or throw (the process fence) before {@code done}.
 */
class SettingsCatalogIT {
  @TempDir Path dir;

  @Test
  void theAgentSpringAndTheProcessFenceAcceptEveryKeyOfEveryModeInOneJvm() throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    Path report = dir.resolve("audit.json");
    Path volume = Files.createDirectories(dir.resolve("volume"));
    List<String> jvm = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    jvm.add("-javaagent:" + BootJars.AGENT_JAR);
    for (Setting<?> s : SettingsCatalog.all()) {
      String key = s.isFamily() ? s.familyPrefix() + "aws-s3-v2" : s.key();
      String value = s.example();
      if (s == SettingsCatalog.DATASOURCE_URL) {
        value = db.jdbcUrl();
      } else if (s == SettingsCatalog.DATASOURCE_PASSWORD) {
        value = "";
      } else if (s == SettingsCatalog.AUDIT_REPORT) {
        value = report.toString();
      } else if (s == SettingsCatalog.AUDIT_PATHS) {
        value = volume.toString();
      }
      jvm.add("-D" + SettingsCatalog.PREFIX + key + "=" + value);
    }
    Path bootJar = BootJars.ofTestClassPath(dir, EveryKeyApp.class);

    try (ForkedJvm app =
        ForkedJvm.start(
            jvm,
            bootJar.toString(),
            BootJars.LAUNCHER,
            "--spring.datasource.url=" + db.jdbcUrl(),
            "--spring.datasource.username=postgres")) {
      app.awaitLine("done", Duration.ofMinutes(4));
      assertThat(app.awaitExit(Duration.ofMinutes(1))).as(app.stderr()).isZero();
      assertThat(app.output())
          .contains(
              "process fence accepted every key",
              "spring bound ttl=" + SettingsCatalog.TTL.parse(SettingsCatalog.TTL.example()),
              "fence ttl=" + SettingsCatalog.TTL.parse(SettingsCatalog.TTL.example()));
      // Both features of the agent were on: it fenced and audited with these settings.
      assertThat(app.stderr()).doesNotContain("unknown setting").contains("fencing ");
    }
    assertThat(report).exists();
  }
}
