package dev.writerfence.testing;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A main class run in a JVM process of its own: the same {@code java} binary and the same test
 * class path as this JVM. Commands go to its standard input one line at a time; its standard output
 * is read line by line; its standard error is kept in a file and shown when an expectation fails.
 *
 * <pre>{@code
 * try (ForkedJvm writer = ForkedJvm.start(WriterProcess.class, url, "writer_fence", "serve")) {
 *   writer.awaitLine("ready", Duration.ofSeconds(30));
 *   writer.send("try corpus upload 30");
 *   String answer = writer.awaitLine(l -> l.startsWith("acquired") || l.equals("busy"), ...);
 * }
 * }</pre>
 *
 * <p>{@link #close()} ends the process if it is still running. Not thread-safe: one test thread
 * talks to one process.
 */
public final class ForkedJvm implements AutoCloseable {
  /** Options for a quick start on a small machine; the tests' processes run for seconds. */
  public static final List<String> DEFAULT_JVM_OPTIONS =
      List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx256m");

  private static final String END_OF_OUTPUT = "\u0000end of output";

  private final String description;
  private final Process process;
  private final Path stderr;
  private final BufferedWriter stdin;
  private final BlockingQueue<String> unread = new LinkedBlockingQueue<>();
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private ForkedJvm(String description, Process process, Path stderr) {
    this.description = description;
    this.process = process;
    this.stderr = stderr;
    this.stdin =
        new BufferedWriter(
            new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    reader = new Thread(this::readOutput, "forked-jvm-" + process.pid() + "-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * @param mainClass a class with a {@code public static void main(String[])} on the test class
   *     path
   * @param args its arguments
   * @return the running process
   */
  public static ForkedJvm start(Class<?> mainClass, String... args) {
    return start(DEFAULT_JVM_OPTIONS, mainClass, args);
  }

  /**
   * @param jvmOptions options placed before the main class, such as {@code -Dkey=value}
   * @param mainClass a class with a {@code public static void main(String[])} on the test class
   *     path
   * @param args its arguments
   * @return the running process
   */
  public static ForkedJvm start(List<String> jvmOptions, Class<?> mainClass, String... args) {
    return start(jvmOptions, testClassPath(), mainClass.getName(), args);
  }

  /**
   * Starts a main class on a class path of the caller's choice, for example an application that
   * must not see the test class path (a legacy jar run with an agent only).
   *
   * @param jvmOptions options placed before the main class, such as {@code -javaagent:...}
   * @param classPath the whole class path
   * @param mainClass the main class's binary name
   * @param args its arguments
   * @return the running process
   */
  public static ForkedJvm start(
      List<String> jvmOptions, String classPath, String mainClass, String... args) {
    return startOn(javaBinary(), jvmOptions, classPath, mainClass, args);
  }

  /**
   * Starts a main class with another {@code java} binary, for example a newer JDK's ({@link
   * #newestJdk()}) for virtual threads.
   *
   * @param java the {@code java} binary
   * @param jvmOptions options placed before the main class
   * @param classPath the whole class path
   * @param mainClass the main class's binary name
   * @param args its arguments
   * @return the running process
   */
  public static ForkedJvm startOn(
      String java, List<String> jvmOptions, String classPath, String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(List.of(args));
    try {
      Path stderr = Files.createTempFile("writer-fence-forked-", ".stderr");
      Process process =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
              .start();
      String simpleName = mainClass.substring(mainClass.lastIndexOf('.') + 1);
      return new ForkedJvm(simpleName + " " + String.join(" ", args), process, stderr);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  /**
   * The {@code java} binary of a JDK 21 or newer, for tests of virtual threads while the build runs
   * on Java 17: {@code WRITER_FENCE_NEWEST_JDK} (a JDK's home), else Temurin 25 where Debian's
   * packages put it, else this JVM when it is 21 or newer.
   *
   * @return the binary, or empty when no such JDK is on this machine
   */
  public static Optional<String> newestJdk() {
    List<Path> homes = new ArrayList<>();
    String given = System.getenv("WRITER_FENCE_NEWEST_JDK");
    if (given != null && !given.isBlank()) {
      homes.add(Path.of(given));
    }
    homes.add(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64"));
    for (Path home : homes) {
      Path java = home.resolve("bin").resolve("java");
      if (Files.isExecutable(java)) {
        return Optional.of(java.toString());
      }
    }
    return Runtime.version().feature() >= 21 ? Optional.of(javaBinary()) : Optional.empty();
  }

  /**
   * @return the {@code java} binary running this JVM
   */
  public static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * @return the class path of the tests: Surefire's test class path when run by Surefire (whose own
   *     {@code java.class.path} is a manifest-only jar), otherwise {@code java.class.path}
   */
  public static String testClassPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank()
        ? surefire
        : System.getProperty("java.class.path");
  }

  /**
   * Writes one line to the process's standard input.
   *
   * @param line the line, without its line break
   */
  public void send(String line) {
    try {
      stdin.write(line);
      stdin.newLine();
      stdin.flush();
    } catch (IOException e) {
      throw new AssertionError(describe("could not send '" + line + "'"), e);
    }
  }

  /**
   * Waits for the next output line that matches, skipping the lines before it.
   *
   * @param match what the line must satisfy
   * @param timeout how long to wait
   * @return the line
   * @throws AssertionError when the process ends or the time runs out first
   */
  public String awaitLine(Predicate<String> match, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String line;
      try {
        line = unread.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(describe("interrupted while waiting for a line"), e);
      }
      if (line == null) {
        throw new AssertionError(describe("no matching line within " + timeout));
      }
      if (line.equals(END_OF_OUTPUT)) {
        unread.add(END_OF_OUTPUT);
        throw new AssertionError(describe("the process closed its output before a matching line"));
      }
      if (match.test(line)) {
        return line;
      }
    }
  }

  /**
   * @param prefix what the line starts with
   * @param timeout how long to wait
   * @return the next line that starts with {@code prefix}
   */
  public String awaitLine(String prefix, Duration timeout) {
    return awaitLine(line -> line.startsWith(prefix), timeout);
  }

  /**
   * @param prefix what each line starts with
   * @param count how many such lines
   * @param timeout how long to wait for all of them
   * @return the next {@code count} lines that start with {@code prefix}
   */
  public List<String> awaitLines(String prefix, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> lines = new ArrayList<>();
    while (lines.size() < count) {
      lines.add(awaitLine(prefix, Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
    }
    return lines;
  }

  /**
   * Waits for the process to end and for its standard output to be read to the end, so that {@link
   * #output()} then holds every line it printed.
   *
   * @param timeout how long to wait for each
   * @return the exit code
   * @throws AssertionError when the process is still running after {@code timeout}
   */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(describe("still running after " + timeout));
      }
      reader.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(describe("interrupted while waiting for the exit"), e);
    }
    return process.exitValue();
  }

  /**
   * @return the process
   */
  public Process process() {
    return process;
  }

  /**
   * @return the process id
   */
  public long pid() {
    return process.pid();
  }

  /**
   * @return every line the process has printed so far
   */
  public List<String> output() {
    return List.copyOf(output);
  }

  /**
   * @return what the process has written to its standard error so far
   */
  public String stderr() {
    try {
      return Files.readString(stderr, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(standard error unreadable: " + e + ")";
    }
  }

  /** Closes standard input and ends the process if it is still running. */
  @Override
  public void close() {
    try {
      stdin.close();
    } catch (IOException e) {
      // the process has gone already
    }
    try {
      if (!process.waitFor(2, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Files.deleteIfExists(stderr);
    } catch (IOException e) {
      // a temporary file; the OS cleans it up
    }
  }

  @Override
  public String toString() {
    return "ForkedJvm[pid=" + process.pid() + ", " + description + "]";
  }

  private void readOutput() {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        output.add(line);
        unread.add(line);
      }
    } catch (IOException e) {
      // the stream closed with the process
    } finally {
      unread.add(END_OF_OUTPUT);
    }
  }

  private String describe(String problem) {
    String err = stderr();
    int tail = Math.max(0, err.length() - 4000);
    return this
        + ": "
        + problem
        + (process.isAlive() ? "" : " (exit code " + process.exitValue() + ")")
        + "\n--- output ---\n"
        + String.join("\n", output)
        + "\n--- standard error (tail) ---\n"
        + err.substring(tail);
  }
}
