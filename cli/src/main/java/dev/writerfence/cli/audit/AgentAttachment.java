package dev.writerfence.cli.audit;

import dev.writerfence.internal.config.SettingsCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a command gets the agent in audit mode: the JVM options {@code -javaagent:JAR
 * -Dwriter-fence.audit.mode=MODE -Dwriter-fence.audit.report=FILE}.
 *
 * <p>When the command's first word is a {@code java} launcher, the options go right after it, so
 * only that JVM is audited, paths may hold spaces, and nothing else changes. Any other command (a
 * script that starts Java) gets them through {@code JAVA_TOOL_OPTIONS}, after the value it already
 * has: every JVM it starts is then audited and writes a report when it exits, so the report path
 * should hold {@code {pid}} (which the agent replaces by the JVM's process id) or the last JVM to
 * exit overwrites the others' reports. {@code JAVA_TOOL_OPTIONS} splits on white space, so there
 * the paths must not hold any.
 *
 * @param agentJar the shaded agent jar
 * @param mode {@code log} or {@code enforce}
 * @param report where the agent writes its JSON report at exit; may hold {@code {pid}}
 * @param map whether the agent records fenced writes too ({@code audit.map}), for the writer map
 */
public record AgentAttachment(Path agentJar, String mode, Path report, boolean map) {
  /** The environment variable every JVM reads its extra options from. */
  public static final String TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";

  /**
   * An attachment that records unfenced writes only.
   *
   * @param agentJar the shaded agent jar
   * @param mode {@code log} or {@code enforce}
   * @param report where the agent writes its JSON report at exit
   */
  public AgentAttachment(Path agentJar, String mode, Path report) {
    this(agentJar, mode, report, false);
  }

  /**
   * @return the JVM options that attach the agent: {@code -javaagent} first, then the settings
   */
  public List<String> jvmOptions() {
    List<String> options = new ArrayList<>();
    options.add("-javaagent:" + agentJar);
    options.add("-D" + SettingsCatalog.AUDIT_MODE.property() + "=" + mode);
    options.add("-D" + SettingsCatalog.AUDIT_REPORT.property() + "=" + report);
    if (map) {
      options.add("-D" + SettingsCatalog.AUDIT_MAP.property() + "=true");
    }
    return List.copyOf(options);
  }

  /**
   * @param command a {@code java} command line
   * @return whether it already has a {@code -javaagent:} option naming a writer-fence agent jar
   *     before its main class or {@code -jar}
   */
  static boolean attachesTheAgent(List<String> command) {
    for (String arg : command.subList(1, command.size())) {
      if (!arg.startsWith("-") || arg.equals("-jar")) {
        return false;
      }
      if (arg.startsWith("-javaagent:") && arg.contains("writer-fence-agent")) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param command a command line, its first word the program
   * @return whether that program is a {@code java} launcher (by its file name)
   */
  public static boolean isJavaLauncher(List<String> command) {
    String name = Path.of(command.get(0)).getFileName().toString().toLowerCase(Locale.ROOT);
    return name.equals("java") || name.equals("java.exe");
  }

  /**
   * Attaches the agent to a command: inserts the options after a {@code java} launcher, or else
   * adds them to {@code JAVA_TOOL_OPTIONS} in {@code environment}.
   *
   * @param command the command line, at least the program
   * @param environment the child's environment, changed in place when the options go there
   * @return the command line to run
   * @throws IllegalArgumentException when the options must go through {@code JAVA_TOOL_OPTIONS} and
   *     a path holds white space
   */
  public List<String> attach(List<String> command, Map<String, String> environment) {
    if (isJavaLauncher(command)) {
      List<String> attached = new ArrayList<>();
      attached.add(command.get(0));
      // A command that attaches the agent itself (to fence methods, say) gets only the audit's
      // settings: system properties win over its config file, and one agent does both.
      List<String> options = jvmOptions();
      attached.addAll(attachesTheAgent(command) ? options.subList(1, options.size()) : options);
      attached.addAll(command.subList(1, command.size()));
      return attached;
    }
    for (String option : jvmOptions()) {
      if (option.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException(
            "'"
                + option
                + "' holds white space, which "
                + TOOL_OPTIONS
                + " cannot carry: start the command with java, or use paths without spaces");
      }
    }
    String existing = environment.get(TOOL_OPTIONS);
    String ours = String.join(" ", jvmOptions());
    environment.put(
        TOOL_OPTIONS,
        existing == null || existing.isBlank() ? ours : existing.strip() + " " + ours);
    return command;
  }
}
