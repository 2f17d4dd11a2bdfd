package dev.writerfence.agent.startup;

import com.acme.legacy.HelloApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Whole-process start-up cost of the agent: the wall time from starting {@code java} to its exit,
 * for {@link HelloApp} without the agent and with it (both features on, nothing fenced or written),
 * alternating the two so that a busy machine slows both alike; the median of each. Start-up is
 * premain (settings, the bootstrap jar, Byte Buddy, the matchers) plus matching every class the
 * application loads.
 *
 * <pre>{@code
 * mvn -q -o package -DskipTests -pl agent
 * java -cp agent/target/test-classes dev.writerfence.agent.startup.StartupCost \
 *     agent/target/writer-fence-agent.jar 15 [JAVA]
 * }</pre>
 */
public final class StartupCost {
  private StartupCost() {}

  /**
   * @param withoutAgentMillis median wall time of the run without the agent
   * @param withAgentMillis median wall time of the run with the agent
   * @param runs runs of each
   */
  public record Result(double withoutAgentMillis, double withAgentMillis, int runs) {
    /**
     * @return what the agent adds to the start-up of the process, in milliseconds
     */
    public double costMillis() {
      return withAgentMillis - withoutAgentMillis;
    }
  }

  /**
   * @param args the agent jar, the number of runs of each (default 15), and a {@code java} binary
   *     (default this JVM's)
   * @throws Exception when a run fails
   */
  public static void main(String[] args) throws Exception {
    Path agent = Path.of(args[0]);
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Path java =
        args.length > 2
            ? Path.of(args[2])
            : Path.of(System.getProperty("java.home"), "bin", "java");
    Result r = measure(java, agent, runs);
    System.out.printf(
        "%s: without agent %.0f ms, with agent %.0f ms, agent cost %.0f ms (median of %d each)%n",
        java, r.withoutAgentMillis(), r.withAgentMillis(), r.costMillis(), r.runs());
  }

  /**
   * @param java the {@code java} binary
   * @param agentJar the agent jar
   * @param runs runs of each, at least 1
   * @return the medians
   * @throws IOException when the application jar cannot be written or a process cannot start
   * @throws InterruptedException when interrupted while waiting for a process
   * @throws IllegalStateException when a run exits with a non-zero status
   */
  public static Result measure(Path java, Path agentJar, int runs)
      throws IOException, InterruptedException {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be at least 1, was " + runs);
    }
    Path app = appJar();
    List<String> plain = List.of(java.toString(), "-cp", app.toString(), HelloApp.class.getName());
    List<String> agent = new ArrayList<>();
    agent.add(java.toString());
    agent.add("-javaagent:" + agentJar.toAbsolutePath());
    // Both features on, as a legacy deployment would have them; the fence connects only on the
    // first fenced call, so no database is needed here.
    agent.add("-Dwriter-fence.audit.mode=log");
    agent.add("-Dwriter-fence.fence.methods=" + HelloApp.class.getName() + "#upload=startup");
    agent.add("-Dwriter-fence.datasource.url=jdbc:postgresql://127.0.0.1:9/none");
    agent.addAll(List.of("-cp", app.toString(), HelloApp.class.getName()));
    time(plain); // warm the file cache for both
    time(agent);
    double[] without = new double[runs];
    double[] with = new double[runs];
    for (int i = 0; i < runs; i++) {
      without[i] = time(plain);
      with[i] = time(agent);
    }
    return new Result(median(without), median(with), runs);
  }

  private static double time(List<String> command) throws IOException, InterruptedException {
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    int exit = p.waitFor();
    double millis = (System.nanoTime() - start) / 1e6;
    if (exit != 0) {
      throw new IllegalStateException("exit " + exit + ": " + String.join(" ", command));
    }
    return millis;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static Path appJar() throws IOException {
    Path jar = Files.createTempFile("writer-fence-startup-", ".jar");
    jar.toFile().deleteOnExit();
    String entry = HelloApp.class.getName().replace('.', '/') + ".class";
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        var in = HelloApp.class.getClassLoader().getResourceAsStream(entry)) {
      out.putNextEntry(new JarEntry(entry));
      in.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }
}
