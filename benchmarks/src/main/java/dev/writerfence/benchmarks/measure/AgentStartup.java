package dev.writerfence.benchmarks.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the agent module's own start-up harness ({@code dev.writerfence.agent.startup.StartupCost}:
 * a small application started with and without the agent, alternating, median of each) and keeps
 * its figures as {@code agent-startup.json}. Nothing of it is reimplemented here.
 */
public final class AgentStartup {
  /** The harness's wall-time figures: "wall 550 ms without the agent, 5480 ms with it". */
  private static final Pattern WALL =
      Pattern.compile("wall (\\d+) ms without the agent, (\\d+) ms with it");

  /** Its CPU-time figures: "CPU 170 ms without, 2080 ms with". */
  private static final Pattern CPU = Pattern.compile("CPU (\\d+) ms without, (\\d+) ms with");

  /** Its run count: "median of 5 runs each". */
  private static final Pattern RUNS = Pattern.compile("median of (\\d+)");

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
   */
  public record Result(
      long withoutAgentMillis,
      long withAgentMillis,
      long costMillis,
      long cpuWithoutAgentMillis,
      long cpuWithAgentMillis,
      int runs,
      String output) {}

  /**
   * @param agentJar the agent jar
   * @param testClasses the agent module's test classes
   * @param runs runs of each
   * @param out where {@code agent-startup.json} goes
   * @throws IOException when the harness cannot be started or its result written
   * @throws InterruptedException when interrupted while it runs
   */
  public static void measure(Path agentJar, Path testClasses, int runs, Path out)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                testClasses.toString(),
                "dev.writerfence.agent.startup.StartupCost",
                agentJar.toString(),
                Integer.toString(runs))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    Matcher wall = WALL.matcher(output);
    if (exit != 0 || !wall.find()) {
      System.out.println("agent start-up harness gave no result (exit " + exit + "): " + output);
      return;
    }
    Matcher cpu = CPU.matcher(output);
    boolean hasCpu = cpu.find();
    Matcher n = RUNS.matcher(output);
    long without = Long.parseLong(wall.group(1));
    long with = Long.parseLong(wall.group(2));
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(
            out.resolve("agent-startup.json").toFile(),
            new Result(
                without,
                with,
                with - without,
                hasCpu ? Long.parseLong(cpu.group(1)) : -1,
                hasCpu ? Long.parseLong(cpu.group(2)) : -1,
                n.find() ? Integer.parseInt(n.group(1)) : runs,
                output.trim()));
  }
}
