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
  private static final Pattern LINE =
      Pattern.compile(
          "without agent (\\d+) ms, with agent (\\d+) ms, agent cost (-?\\d+) ms \\(median of (\\d+)");

  private AgentStartup() {}

  /**
   * Its figures.
   *
   * @param withoutAgentMillis median wall time without the agent
   * @param withAgentMillis median wall time with it
   * @param costMillis the difference
   * @param runs runs of each
   * @param output the harness's own line
   */
  public record Result(
      long withoutAgentMillis, long withAgentMillis, long costMillis, int runs, String output) {}

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
    Matcher m = LINE.matcher(output);
    if (exit != 0 || !m.find()) {
      System.out.println("agent start-up harness gave no result (exit " + exit + "): " + output);
      return;
    }
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(
            out.resolve("agent-startup.json").toFile(),
            new Result(
                Long.parseLong(m.group(1)),
                Long.parseLong(m.group(2)),
                Long.parseLong(m.group(3)),
                Integer.parseInt(m.group(4)),
                output.trim()));
  }
}
