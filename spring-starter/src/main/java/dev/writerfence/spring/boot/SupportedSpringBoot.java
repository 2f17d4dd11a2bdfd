package dev.writerfence.spring.boot;

import java.util.List;
import org.springframework.boot.SpringBootVersion;
import org.springframework.util.ClassUtils;

/**
 * The Spring Boot generations the starter is built and tested for, checked when the
 * auto-configuration starts: an application on any other Spring Boot stops at start-up with a
 * message naming its version and the supported ones, instead of running half a starter.
 */
public final class SupportedSpringBoot {
  /** The supported Spring Boot lines, major.minor: 3.5.x and 4.0.x. */
  public static final List<String> LINES = List.of("3.5", "4.0");

  /** The artifact that adds what differs on Spring Boot 3 (the health contributor). */
  public static final String BOOT3_ARTIFACT = "writer-fence-spring-boot3-starter";

  /** A class of {@value #BOOT3_ARTIFACT}, present when the application depends on it. */
  static final String BOOT3_MARKER =
      "dev.writerfence.spring.boot3.WriterFenceBoot3HealthAutoConfiguration";

  private SupportedSpringBoot() {}

  /**
   * Checks the running Spring Boot.
   *
   * @throws IllegalStateException if it is not of a supported line, or is Spring Boot 3 without
   *     {@value #BOOT3_ARTIFACT}
   */
  static void check() {
    check(SpringBootVersion.getVersion(), ClassUtils.isPresent(BOOT3_MARKER, null));
  }

  /**
   * @param version Spring Boot's version, e.g. {@code 3.5.7}; {@code null} when unknown (Spring
   *     Boot's jar has no manifest version, e.g. classes repackaged into another jar)
   * @param boot3Present whether {@value #BOOT3_ARTIFACT} is on the class path
   * @throws IllegalStateException if {@code version} is not of a line in {@link #LINES}, or is of
   *     the 3.5 line while {@code boot3Present} is false
   */
  public static void check(String version, boolean boot3Present) {
    if (version == null) {
      return;
    }
    String line = line(version);
    if (!LINES.contains(line)) {
      throw new IllegalStateException(
          "writer-fence: Spring Boot "
              + version
              + " is not supported; the starter supports Spring Boot "
              + String.join(".x and ", LINES)
              + ".x (writer-fence-spring-boot-starter for 4.0, "
              + BOOT3_ARTIFACT
              + " for 3.5)");
    }
    if (line.startsWith("3.") && !boot3Present) {
      throw new IllegalStateException(
          "writer-fence: on Spring Boot "
              + version
              + " depend on "
              + BOOT3_ARTIFACT
              + " instead of writer-fence-spring-boot-starter (it adds the Spring Boot 3 health"
              + " contributor); writer-fence-spring-boot-starter alone serves Spring Boot 4.0.x");
    }
  }

  private static String line(String version) {
    String[] parts = version.split("\\.", 3);
    return parts.length < 2 ? version : parts[0] + "." + parts[1];
  }
}
