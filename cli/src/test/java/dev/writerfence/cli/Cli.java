package dev.writerfence.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the command line in this JVM and keeps what it printed. */
public final class Cli {
  /**
   * What one run printed, and its exit status.
   *
   * @param exitCode the exit status
   * @param out what went to stdout
   * @param err what went to stderr
   */
  public record Run(int exitCode, String out, String err) {}

  private Cli() {}

  /**
   * @param args the command line
   * @return the exit status and the output
   */
  public static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        WriterFenceCli.commandLine()
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new Run(exit, out.toString(), err.toString());
  }
}
