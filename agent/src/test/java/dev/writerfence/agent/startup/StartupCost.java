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
 *     agent/target/writer-fence-agent.jar 15 [JAVA [JAR_OF_CLASSES_TO_LOAD]]
 * }</pre>
 */
public final class StartupCost {
  /** GNU time, for the wall and CPU time of each process (Debian package {@code time}). */
  private static final String TIME = "/usr/bin/time";

  private StartupCost() {}

  /**
   * Medians over the runs, in milliseconds: wall time, and CPU time (user plus system, all threads
   * of the process, from {@code /usr/bin/time}), which a machine busy with other work distorts less
   * than wall time.
   *
   * @param withoutAgentWall wall time without the agent
   * @param withAgentWall wall time with the agent
   * @param withoutAgentCpu CPU time without the agent
   * @param withAgentCpu CPU time with the agent
   * @param runs runs of each
   */
  public record Result(
      double withoutAgentWall,
      double withAgentWall,
      double withoutAgentCpu,
      double withAgentCpu,
      int runs) {
    @Override
    public String toString() {
      return String.format(
          "wall %.0f ms without the agent, %.0f ms with it (+%.0f ms); CPU %.0f ms without,"
              + " %.0f ms with (+%.0f ms); median of %d runs each",
          withoutAgentWall,
          withAgentWall,
          withAgentWall - withoutAgentWall,
          withoutAgentCpu,
          withAgentCpu,
          withAgentCpu - withoutAgentCpu,
          runs);
    }
  }

  /**
   * @param args the agent jar, the number of runs of each (default 15), a {@code java} binary
   *     (default this JVM's), and a jar whose classes the application loads (default none)
   * @throws Exception when a run fails
   */
  public static void main(String[] args) throws Exception {
    Path agent = Path.of(args[0]);
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Path java =
        args.length > 2
            ? Path.of(args[2])
            : Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> appArgs = args.length > 3 ? List.of(args[3]) : List.of();
    Result r = measure(java, agent, runs, appArgs);
    System.out.println(java + " " + appArgs + ": " + r);
  }

  /**
   * @param java the {@code java} binary
   * @param agentJar the agent jar
   * @param runs runs of each, at least 1
   * @param appArgs the application's arguments: nothing, or a jar whose classes it loads
   * @return the medians
   * @throws IOException when the application jar cannot be written or a process cannot start
   * @throws InterruptedException when interrupted while waiting for a process
   * @throws IllegalStateException when a run exits with a non-zero status
   */
  public static Result measure(Path java, Path agentJar, int runs, List<String> appArgs)
      throws IOException, InterruptedException {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be at least 1, was " + runs);
    }
    Path app = appJar();
    List<String> plain =
        new ArrayList<>(List.of(java.toString(), "-cp", app.toString(), HelloApp.class.getName()));
    plain.addAll(appArgs);
    List<String> agent = new ArrayList<>();
    agent.add(java.toString());
    agent.add("-javaagent:" + agentJar.toAbsolutePath());
    // Both features on, as a legacy deployment would have them; the fence connects only on the
    // first fenced call, so no database is needed here.
    agent.add("-Dwriter-fence.audit.mode=log");
    agent.add("-Dwriter-fence.fence.methods=" + HelloApp.class.getName() + "#upload=startup");
    agent.add("-Dwriter-fence.datasource.url=jdbc:postgresql://127.0.0.1:9/none");
    agent.addAll(List.of("-cp", app.toString(), HelloApp.class.getName()));
    agent.addAll(appArgs);
    time(plain); // warm the file cache for both
    time(agent);
    double[][] without = new double[2][runs];
    double[][] with = new double[2][runs];
    for (int i = 0; i < runs; i++) {
      double[] a = time(plain);
      double[] b = time(agent);
      for (int k = 0; k < 2; k++) {
        without[k][i] = a[k];
        with[k][i] = b[k];
      }
    }
    return new Result(
        median(without[0]), median(with[0]), median(without[1]), median(with[1]), runs);
  }

  /** Runs the command under {@code /usr/bin/time}; answers wall and CPU milliseconds. */
  private static double[] time(List<String> command) throws IOException, InterruptedException {
    List<String> timed = new ArrayList<>(List.of(TIME, "-f", "writer-fence-time %e %U %S"));
    timed.addAll(command);
    Path err = Files.createTempFile("writer-fence-startup-", ".err");
    try {
      Process p =
          new ProcessBuilder(timed)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(err.toFile())
              .start();
      int exit = p.waitFor();
      List<String> lines = Files.readAllLines(err);
      if (exit != 0
          || lines.isEmpty()
          || !lines.get(lines.size() - 1).startsWith("writer-fence-time ")) {
        throw new IllegalStateException(
            "exit " + exit + ": " + String.join(" ", command) + "\n" + String.join("\n", lines));
      }
      String[] t = lines.get(lines.size() - 1).split(" ");
      return new double[] {
        Double.parseDouble(t[1]) * 1000,
        (Double.parseDouble(t[2]) + Double.parseDouble(t[3])) * 1000
      };
    } finally {
      Files.delete(err);
    }
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
