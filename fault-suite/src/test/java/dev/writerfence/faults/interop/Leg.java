package dev.writerfence.faults.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A writer in another language that calls the lease-RPC pair with its real client: the TypeScript
 * leg's calls through npm {@code pg} (Node), the Python leg's through Debian's {@code
 * python3-asyncpg}. Each runs its script under {@code src/test/interop} as a process of its own;
 * the Python leg also runs {@code wait_turn.py}, a writer waiting its turn in the queue with {@code
 * acquire_turn} and {@code LISTEN} ({@link QueueTurnInteropTest}). Without the runtime or the
 * client library the test is skipped, or fails under {@code CI=true} ({@code .ci/run} installs
 * both).
 */
enum Leg {
  NODE("node", Path.of("src/test/interop/node/leg.js")) {
    @Override
    String missing() {
      if (!runs("node", "--version")) {
        return "node is not on the PATH";
      }
      if (!Files.isDirectory(Path.of("src/test/interop/node/node_modules/pg"))) {
        return "npm pg is not installed in fault-suite/src/test/interop/node (run npm ci there)";
      }
      return null;
    }
  },
  PYTHON("/usr/bin/python3", Path.of("src/test/interop/python/leg.py")) {
    @Override
    String missing() {
      if (!runs("/usr/bin/python3", "-c", "import asyncpg")) {
        return "/usr/bin/python3 cannot import asyncpg (apt-get install python3-asyncpg)";
      }
      return null;
    }
  };

  private final String runtime;
  private final Path script;

  Leg(String runtime, Path script) {
    this.runtime = runtime;
    this.script = script;
  }

  /**
   * @return why this leg cannot run here, or {@code null} when it can
   */
  abstract String missing();

  /** Skips the calling test without the leg's runtime or client, or fails it under CI=true. */
  void require() {
    String missing = missing();
    if (missing == null) {
      return;
    }
    String message = "the " + name().toLowerCase() + " leg cannot run: " + missing;
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.abort(message + "; skipped");
  }

  /**
   * Starts the leg's script.
   *
   * @param mode hold, try or rounds
   * @param db where and as whom it connects
   * @param holder its holder label
   * @param more further {@code --name value} pairs
   * @return the running leg
   */
  Running start(String mode, Database db, String holder, String... more) throws IOException {
    return start(script, mode, db, holder, more);
  }

  /**
   * Starts another script of this leg's language (its runtime and client), with the same connection
   * arguments as {@link #start(String, Database, String, String...)}.
   *
   * @param script the script, relative to the module
   * @param mode the script's mode
   * @param db where and as whom it connects
   * @param holder its holder label
   * @param more further {@code --name value} pairs
   * @return the running script
   */
  Running start(Path script, String mode, Database db, String holder, String... more)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(runtime);
    command.add(script.toString());
    command.add(mode);
    command.addAll(
        List.of(
            "--port",
            String.valueOf(db.port()),
            "--db",
            db.name(),
            "--user",
            db.user(),
            "--password",
            db.password(),
            "--holder",
            holder));
    command.addAll(List.of(more));
    Path err = Files.createTempFile("writer-fence-leg-" + name().toLowerCase(), ".err");
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.to(err.toFile())).start();
    return new Running(process, err);
  }

  /**
   * Starts a leg that takes the row and holds it until {@link Running#releaseHold()}.
   *
   * @throws AssertionError when the leg found the row busy
   */
  Running hold(Database db, String holder) throws IOException {
    Running running = start("hold", db, holder);
    String answer = running.line();
    if (!"held".equals(answer)) {
      throw new AssertionError("the " + this + " leg could not take the row: " + answer);
    }
    return running;
  }

  /** A leg's process, with one reader of its output. */
  static final class Running {
    private final Process process;
    private final Path err;
    private final BufferedReader out;

    Running(Process process, Path err) {
      this.process = process;
      this.err = err;
      this.out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The next line the leg printed; fails when it ended first. */
    String line() throws IOException {
      String line = out.readLine();
      if (line == null) {
        throw new AssertionError("the leg ended without an answer: " + ended());
      }
      return line;
    }

    /** Sends a line to the leg's stdin. */
    void send(String line) throws IOException {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    }

    /** Tells a holding leg to release; fails unless its release answered true. */
    void releaseHold() throws IOException, InterruptedException {
      send("release");
      String answer = line();
      finish();
      if (!"released true".equals(answer)) {
        throw new AssertionError("the leg's release answered: " + answer);
      }
    }

    /** Waits for the leg to end; its remaining output, failing on a non-zero exit code. */
    String finish() throws IOException, InterruptedException {
      StringBuilder rest = new StringBuilder();
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        rest.append(line).append('\n');
      }
      if (!process.waitFor(180, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("the leg did not end within 180 s; output: " + rest);
      }
      if (process.exitValue() != 0) {
        throw new AssertionError("the leg ended with " + ended() + "; output: " + rest);
      }
      return rest.toString().strip();
    }

    private String ended() {
      try {
        process.waitFor(10, TimeUnit.SECONDS);
        String code = process.isAlive() ? "(still running)" : String.valueOf(process.exitValue());
        return "exit code " + code + "; stderr: " + Files.readString(err);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      } catch (IOException e) {
        return "stderr unreadable: " + e;
      }
    }
  }

  private static boolean runs(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
