package dev.writerfence.cli;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.Charset;

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
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        WriterFenceCli.commandLine(answers)
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new Run(exit, out.toString(), err.toString());
  }
}
