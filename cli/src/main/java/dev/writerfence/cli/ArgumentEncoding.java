package dev.writerfence.cli;

import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Refuses a command-line argument that the JVM could not decode, before anything is done with it.
 *
 * <p>The JDK's launcher decodes {@code argv} in the encoding of the locale the JVM started under
 * ({@code sun.jnu.encoding}). Under {@code LANG=C} or {@code LC_ALL=C}, the default of many
 * containers, that is ASCII, and each byte of a non-ASCII character becomes U+FFFD: {@code
 * bucket:ümlaut} arrives as {@code bucket:\uFFFD\uFFFDmlaut}, another fence name. {@code key} would
 * print another name's key, {@code release --force} look for another row, {@code audit} pass a
 * mangled argument to its command, all with exit status 0. Under a UTF-8 locale nothing is refused:
 * there a U+FFFD is what the caller passed.
 */
final class ArgumentEncoding {
  /** What a decoder puts for bytes it cannot decode. */
  static final char REPLACEMENT = '\uFFFD';

  /** The locale variables in the order the C library consults them for the character encoding. */
  private static final List<String> LOCALE_VARIABLES = List.of("LC_ALL", "LC_CTYPE", "LANG");

  private final String encoding;
  private final Map<String, String> environment;

  /**
   * @param encoding the encoding the command line was decoded with, as the JVM names it (such as
   *     {@code ANSI_X3.4-1968} or {@code UTF-8}); {@code null} when unknown, then nothing is
   *     refused
   * @param environment the process environment, for the locale variables the message names
   */
  ArgumentEncoding(String encoding, Map<String, String> environment) {
    this.encoding = encoding;
    this.environment = Map.copyOf(environment);
  }

  /**
   * @return the check for this JVM's command line and environment
   */
  static ArgumentEncoding ofThisJvm() {
    return new ArgumentEncoding(commandLineEncoding(System.getProperties()), System.getenv());
  }

  /**
   * The encoding the JVM decoded its command line with: {@code sun.jnu.encoding}, which the
   * launcher uses for {@code argv} (and which stays the locale's where Java 18+ makes {@code
   * file.encoding} UTF-8); else {@code native.encoding} (Java 17+), else {@code file.encoding}.
   *
   * @param properties the system properties
   * @return the encoding's name, or {@code null} when none of the three is set
   */
  static String commandLineEncoding(Properties properties) {
    for (String name : List.of("sun.jnu.encoding", "native.encoding", "file.encoding")) {
      String value = properties.getProperty(name);
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    return null;
  }

  /**
   * Checks every value the command line gave to an option or a positional parameter, of the command
   * and of its subcommands.
   *
   * @param parsed the parsed command line
   * @throws ParameterException (exit status 2) for the first value holding U+FFFD when the command
   *     line was not decoded as UTF-8: naming the value, the encoding and the locale in effect, and
   *     the command to run instead
   */
  void check(ParseResult parsed) {
    if (encoding == null || isUtf8(encoding)) {
      return;
    }
    ParseResult deepest = parsed;
    while (deepest.hasSubcommand()) {
      deepest = deepest.subcommand();
    }
    for (ParseResult r = parsed; r != null; r = r.hasSubcommand() ? r.subcommand() : null) {
      for (ArgSpec arg : r.matchedArgs()) {
        for (String value : arg.originalStringValues()) {
          if (value.indexOf(REPLACEMENT) >= 0) {
            throw new ParameterException(
                r.commandSpec().commandLine(),
                message(label(arg), value, deepest.commandSpec().qualifiedName()));
          }
        }
      }
    }
  }

  /**
   * @param label the option or parameter, such as {@code NAME} or {@code --scheme}
   * @param value its value as decoded, holding U+FFFD
   * @param command the command as typed, such as {@code writer-fence key}
   * @return what is wrong and how to run the command instead, one line
   */
  String message(String label, String value, String command) {
    boolean lcSet = set("LC_ALL") != null || set("LC_CTYPE") != null;
    return label
        + " '"
        + value.replace(String.valueOf(REPLACEMENT), "\\uFFFD")
        + "' lost its non-ASCII characters: the JVM decoded the command line as "
        + encoding
        + ", the encoding of "
        + locale()
        + ", not UTF-8, and each byte it could not decode became U+FFFD (shown as \\uFFFD)."
        + " Nothing was done. Run it under a UTF-8 locale: "
        + (lcSet ? "LC_ALL" : "LANG")
        + "=C.UTF-8 ./"
        + command
        + " ...";
  }

  /** The locale variable that sets the encoding, as {@code LANG=C}, or that none is set. */
  private String locale() {
    for (String variable : LOCALE_VARIABLES) {
      String value = set(variable);
      if (value != null) {
        return variable + "=" + value;
      }
    }
    return "the C locale (none of LC_ALL, LC_CTYPE, LANG is set)";
  }

  private String set(String variable) {
    String value = environment.get(variable);
    return value == null || value.isEmpty() ? null : value;
  }

  private static String label(ArgSpec arg) {
    return arg instanceof OptionSpec option ? option.longestName() : arg.paramLabel();
  }

  private static boolean isUtf8(String encoding) {
    try {
      return Charset.isSupported(encoding)
          && Charset.forName(encoding).equals(StandardCharsets.UTF_8);
    } catch (IllegalCharsetNameException e) {
      return false;
    }
  }

  /**
   * @param strategy how the command line runs once parsed
   * @return the same, after this JVM's check of every argument
   */
  static CommandLine.IExecutionStrategy checkingFirst(CommandLine.IExecutionStrategy strategy) {
    return parsed -> {
      ofThisJvm().check(parsed);
      return strategy.execute(parsed);
    };
  }
}
