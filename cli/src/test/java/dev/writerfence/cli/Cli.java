package dev.writerfence.cli;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;

/**
 * Runs a command line in this JVM and keeps what it printed: the ops command line, or another built
 * with {@link WriterFenceCli#withErrorHandling} (the demo module's tests use this one).
 */
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
    return runAnswering("", args);
  }

  /**
   * @param answers what the command reads as answers to its questions (standard input)
   * @param args the command line
   * @return the exit status and the output
   */
  public static Run runAnswering(String answers, String... args) {
    return runAnswering(new ByteArrayInputStream(answers.getBytes(Charset.defaultCharset())), args);
  }

  /**
   * @param answers what the command reads as answers to its questions (standard input)
   * @param args the command line
   * @return the exit status and the output
   */
  public static Run runAnswering(InputStream answers, String... args) {
    return runOn(WriterFenceCli.commandLine(answers), args);
  }

  /**
   * @param cli a command line, not yet run
   * @param args its arguments
   * @return the exit status and the output
   */
  public static Run runOn(CommandLine cli, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        cli.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
    return new Run(exit, out.toString(), err.toString());
  }
}
