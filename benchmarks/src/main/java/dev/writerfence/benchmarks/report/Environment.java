package dev.writerfence.benchmarks.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.writerfence.benchmarks.Plan;
import dev.writerfence.benchmarks.server.BenchDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The method part of a report, recorded when the run starts: machine, load, JVM, library versions,
 * plan, and the PostgreSQL settings read back from the running server ({@code environment.json}).
 */
public final class Environment {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Environment() {}

  /**
   * @param out the run's directory
   * @param plan the plan
   * @param durable the durable server
   * @param redis whether a redis-server runs
   * @throws IOException when the file cannot be written
   * @throws SQLException when the server's settings cannot be read
   */
  public static void write(Path out, Plan plan, BenchDatabase durable, boolean redis)
      throws IOException, SQLException {
    Map<String, Object> env = new LinkedHashMap<>();
    env.put("started", Instant.now().toString());
    env.put("plan", plan);
    env.put("cpus", Runtime.getRuntime().availableProcessors());
    env.put("cpuModel", firstValue("/proc/cpuinfo", "model name"));
    env.put("memory", firstValue("/proc/meminfo", "MemTotal"));
    env.put("loadAverageAtStart", read("/proc/loadavg").trim());
    env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.put(
        "java",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vendor")
            + ")");
    env.put("versions", versions());
    env.put("postgresDurable", durable.settings());
    env.put("redis", redis ? redisVersion() : "not installed: Redisson row skipped");
    JSON.writeValue(out.resolve("environment.json").toFile(), env);
  }

  /**
   * @param out the run's directory
   * @param fast the speed-first server
   * @throws IOException when the file cannot be written
   * @throws SQLException when the server's settings cannot be read
   */
  public static void writeSpeedFirst(Path out, BenchDatabase fast)
      throws IOException, SQLException {
    JSON.writeValue(out.resolve("environment-speedfirst.json").toFile(), fast.settings());
  }

  private static Map<String, String> versions() throws IOException {
    Properties p = new Properties();
    try (InputStream in = Environment.class.getResourceAsStream("/bench-versions.properties")) {
      p.load(in);
    }
    Map<String, String> sorted = new TreeMap<>();
    p.forEach((k, v) -> sorted.put(k.toString(), v.toString()));
    return sorted;
  }

  private static String redisVersion() {
    try {
      Process p = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
      String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor();
      return v;
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String firstValue(String file, String key) {
    for (String line : read(file).split("\n")) {
      if (line.startsWith(key)) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return "unknown";
  }

  private static String read(String file) {
    try {
      return Files.readString(Path.of(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
