package dev.writerfence.benchmarks.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the agent module's own start-up harness ({@code dev.writerfence.agent.startup.StartupCost}:
 * a small application started with and without the agent, alternating, median of each; audit on,
 * propagation on by default, one fenced class that loads) and keeps its figures as {@code
 * agent-startup.json} for this JVM's {@code java} and {@code agent-startup-25.json} for Temurin 25
 * when it is installed. Nothing of it is reimplemented here.
 */
public final class AgentStartup {
  /** The harness's wall-time figures: "wall 550 ms without the agent, 5480 ms with it". */
  private static final Pattern WALL =
      Pattern.compile("wall (\\d+) ms without the agent, (\\d+) ms with it");

  /** Its CPU-time figures: "CPU 170 ms without, 2080 ms with". */
  private static final Pattern CPU = Pattern.compile("CPU (\\d+) ms without, (\\d+) ms with");

  /** Its run count: "median of 5 runs each". */
  private static final Pattern RUNS = Pattern.compile("median of (\\d+)");

  /**
   * System property: the {@code java} binary of the second JDK the start-up is measured on; default
   * Temurin 25 where Debian's layout puts it. Skipped when it is not there.
   */
  public static final String JDK25 = "bench.jdk25";

  private static final Path DEFAULT_JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

  private AgentStartup() {}

  /**
   * Its figures; -1 where its output did not carry one.
   *
   * @param withoutAgentMillis median wall time without the agent
   * @param withAgentMillis median wall time with it
   * @param costMillis the difference
   * @param cpuWithoutAgentMillis median CPU time without the agent
   * @param cpuWithAgentMillis median CPU time with it
   * @param runs runs of each
   * @param output the harness's own output
   * @param java the feature version of the {@code java} the application ran on, e.g. {@code 17}
   */
  public record Result(
      long withoutAgentMillis,
      long withAgentMillis,
      long costMillis,
      long cpuWithoutAgentMillis,
      long cpuWithAgentMillis,
      int runs,
      String output,
      String java) {}

  /**
   * Runs the harness on this JVM's {@code java} and, when installed, on Temurin 25's.
   *
   * @param agentJar the agent jar
   * @param testClasses the agent module's test classes
   * @param runs runs of each
   * @param out where {@code agent-startup.json} (and {@code agent-startup-25.json}) go
   * @return how many JDKs gave a result: 0 when the harness failed on this JVM's {@code java}
   * @throws IOException when the harness cannot be started or its result written
   * @throws InterruptedException when interrupted while it runs
   */
  public static int measure(Path agentJar, Path testClasses, int runs, Path out)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    String feature = Integer.toString(Runtime.version().feature());
    if (!measure(java, feature, agentJar, testClasses, runs, out.resolve("agent-startup.json"))) {
      return 0;
    }
    String other = System.getProperty(JDK25);
    Path jdk25 = other == null || other.isBlank() ? DEFAULT_JDK25 : Path.of(other);
    if (!Files.isExecutable(jdk25)) {
      System.out.println("agent start-up: no " + jdk25 + ", measured on Java " + feature + " only");
      return 1;
    }
    return measure(jdk25, "25", agentJar, testClasses, runs, out.resolve("agent-startup-25.json"))
        ? 2
        : 1;
  }

  /** One harness run, the application on {@code java}; false when it gave no result. */
  private static boolean measure(
      Path java, String feature, Path agentJar, Path testClasses, int runs, Path file)
      throws IOException, InterruptedException {
    Path harnessJava = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                harnessJava.toString(),
                "-cp",
                testClasses.toString(),
                "dev.writerfence.agent.startup.StartupCost",
                agentJar.toString(),
                Integer.toString(runs),
                java.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    Matcher wall = WALL.matcher(output);
    if (exit != 0 || !wall.find()) {
      System.out.println(
          "agent start-up harness gave no result on " + java + " (exit " + exit + "): " + output);
      return false;
    }
    Matcher cpu = CPU.matcher(output);
    boolean hasCpu = cpu.find();
    Matcher n = RUNS.matcher(output);
    long without = Long.parseLong(wall.group(1));
    long with = Long.parseLong(wall.group(2));
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(
            file.toFile(),
            new Result(
                without,
                with,
                with - without,
                hasCpu ? Long.parseLong(cpu.group(1)) : -1,
                hasCpu ? Long.parseLong(cpu.group(2)) : -1,
                n.find() ? Integer.parseInt(n.group(1)) : runs,
                output.trim(),
                feature));
    return true;
  }
}
