package dev.writerfence.demo;

import dev.writerfence.cli.WriterFenceCli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The demo's {@code writer-fence} command line: {@code demo} and {@code database}, with the ops
 * command line's error handling and version. Exit status: 0 done (demo: no violation), 1 failed
 * (demo: a violation, or a writer failed), 2 bad input (nothing was started).
 *
 * <p>The ops commands ({@code status}, {@code schema}, {@code release}, {@code key}, {@code audit})
 * are {@link WriterFenceCli}'s, in the writer-fence-cli jar, whose class path holds none of the
 * demo's servers; the {@code ./writer-fence} launcher runs each command from its module's jar.
 */
@Command(
    name = "writer-fence",
    mixinStandardHelpOptions = true,
    versionProvider = WriterFenceCli.Version.class,
    description = "The writer-fence demo, and a throwaway PostgreSQL for trying the agent.",
    footerHeading = "%n",
    footer = "The ops commands (status, schema, release, key, audit): ./writer-fence --help.",
    subcommands = {DemoCommand.class, DatabaseCommand.class, CommandLine.HelpCommand.class})
public final class DemoCli implements Runnable {
  @Spec CommandLine.Model.CommandSpec spec;

  private DemoCli() {}

  /**
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * @return the command line, ready to {@link CommandLine#execute}, with the error handling of
   *     {@link #main}
   */
  public static CommandLine commandLine() {
    return WriterFenceCli.withErrorHandling(new CommandLine(new DemoCli()));
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "a command is required: demo or database");
  }
}
