package dev.writerfence.cli;

import dev.writerfence.cli.audit.AuditCommand;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.sql.SQLException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code writer-fence} ops command line: {@code status}, {@code schema}, {@code release},
 * {@code key} and {@code audit}. Exit status: 0 done, 1 failed, 2 bad input (nothing was done).
 *
 * <p>{@code demo} and {@code database} are not here: they need embedded PostgreSQL, S3Proxy and the
 * AWS SDK, which the ops commands never use, and live in the demo module (writer-fence-demo), whose
 * command line shares this one's error handling ({@link #withErrorHandling}) and version. The
 * {@code ./writer-fence} launcher runs each command from its module's jar.
 */
@Command(
    name = "writer-fence",
    mixinStandardHelpOptions = true,
    versionProvider = WriterFenceCli.Version.class,
    description = "One writer at a time for a shared bucket, fenced by a PostgreSQL lease.",
    footerHeading = "%nFrom the demo module (writer-fence-demo), through ./writer-fence:%n",
    footer = {
      "  demo      Run writer processes on one bucket through the fence, then check what they did.",
      "  database  Run a throwaway PostgreSQL on 127.0.0.1 with the SQL contract installed."
    },
    subcommands = {
      SchemaCommand.class,
      StatusCommand.class,
      ReleaseCommand.class,
      KeyCommand.class,
      AuditCommand.class,
      CommandLine.HelpCommand.class
    })
public final class WriterFenceCli implements Runnable {
  /** The start of every bad-input message. */
  private static final String PREFIX = "writer-fence: ";

  @Spec CommandLine.Model.CommandSpec spec;

  /** Where answers to questions come from ({@code release --force} asks before clearing). */
  private final BufferedReader answers;

  private WriterFenceCli(BufferedReader answers) {
    this.answers = answers;
  }

  /**
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * @return the command line, ready to {@link CommandLine#execute}, with the error handling of
   *     {@link #main}; questions are answered on standard input
   */
  public static CommandLine commandLine() {
    return commandLine(System.in);
  }

  /**
   * @param answers where the answers to questions are read, one line each
   * @return the command line, ready to {@link CommandLine#execute}, with the error handling of
   *     {@link #main}
   */
  public static CommandLine commandLine(InputStream answers) {
    return withErrorHandling(
        new CommandLine(
            new WriterFenceCli(
                new BufferedReader(new InputStreamReader(answers, Charset.defaultCharset())))));
  }

  /**
   * The error handling every {@code writer-fence} command line shares: bad input is one line naming
   * what is wrong and where the usage is (exit 2), a failure while running one line naming the
   * command (exit 1). An argument the JVM could not decode (U+FFFD under a locale that is not
   * UTF-8, such as {@code LANG=C}) is bad input too, checked before any command runs ({@link
   * ArgumentEncoding}).
   *
   * @param cli a command line whose subcommands are all added
   * @return {@code cli}
   */
  public static CommandLine withErrorHandling(CommandLine cli) {
    cli.setParameterExceptionHandler(WriterFenceCli::badInput);
    cli.setExecutionExceptionHandler(WriterFenceCli::failed);
    cli.setExecutionStrategy(ArgumentEncoding.checkingFirst(cli.getExecutionStrategy()));
    return cli;
  }

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "a command is required: status, schema, release, key or audit (or demo, database)");
  }

  /**
   * @return the reader of answers to questions, one line each
   */
  BufferedReader answers() {
    return answers;
  }

  /**
   * Bad input (an unknown option, a missing or malformed value, a value outside its range): the one
   * line that says what is wrong, where to find the usage, exit 2. The full usage is not reprinted.
   */
  private static int badInput(ParameterException e, String[] args) {
    CommandLine cli = e.getCommandLine();
    PrintWriter err = cli.getErr();
    err.println(badInputMessage(e.getMessage()));
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Try './" + cli.getCommandSpec().qualifiedName() + " --help'");
    err.flush();
    CommandLine.IExitCodeExceptionMapper mapper = cli.getExitCodeExceptionMapper();
    return mapper != null ? mapper.getExitCode(e) : cli.getCommandSpec().exitCodeOnInvalidInput();
  }

  /**
   * One prefix for every bad-input message, whether it comes from picocli ("Missing required
   * option: ..."), from a check of this module or from core (which already says "writer-fence:").
   *
   * @param message what is wrong
   * @return {@code writer-fence: } and the message, starting lower-case
   */
  static String badInputMessage(String message) {
    String m = message == null ? "bad input" : message.strip();
    if (m.startsWith(PREFIX)) {
      m = m.substring(PREFIX.length()).strip();
    }
    if (m.length() > 1
        && Character.isUpperCase(m.charAt(0))
        && Character.isLowerCase(m.charAt(1))) {
      m = Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }
    return PREFIX + m;
  }

  /** A failure while running (database refused, server did not start): a message, exit 1. */
  private static int failed(Exception e, CommandLine cli, CommandLine.ParseResult parseResult) {
    PrintWriter err = cli.getErr();
    // "writer-fence schema install: ..." once, though the message may start with our prefix too.
    String message = describe(e);
    if (message.startsWith("writer-fence: ")) {
      message = message.substring("writer-fence: ".length());
    }
    err.println(cli.getCommandSpec().qualifiedName() + ": " + message);
    if (Boolean.getBoolean(dev.writerfence.internal.config.SettingsCatalog.DEBUG.property())) {
      e.printStackTrace(err);
    }
    err.flush();
    return 1;
  }

  /**
   * @param e a failure
   * @return its message with the messages of its causes, one line
   */
  static String describe(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
      if (sb.indexOf(message) < 0) {
        if (sb.length() > 0) {
          sb.append(": ");
        }
        sb.append(message);
        if (t instanceof SQLException sql && sql.getSQLState() != null) {
          sb.append(" (SQLState ").append(sql.getSQLState()).append(')');
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return sb.toString();
  }

  /**
   * The version from the CLI jar's manifest ({@code Implementation-Version}); the demo's command
   * line prints it too.
   */
  public static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {line(WriterFenceCli.class.getPackage().getImplementationVersion())};
    }

    /**
     * @param implementationVersion the jar manifest's {@code Implementation-Version}, or {@code
     *     null} when the classes do not run from the packaged jar
     * @return the line {@code --version} prints
     */
    static String line(String implementationVersion) {
      return "writer-fence "
          + (implementationVersion != null && !implementationVersion.isBlank()
              ? implementationVersion
              : "(development build)");
    }
  }
}
