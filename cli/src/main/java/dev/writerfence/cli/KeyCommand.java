package dev.writerfence.cli;

import dev.writerfence.internal.FenceArguments;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.store.advisory.AdvisoryKeys;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence key NAME}: the advisory-lock key of a fence name ({@link
 * AdvisoryKeys#keyOf}), for finding a hold in {@code pg_locks} or for writers in other languages.
 * {@code writer-fence key --scheme SCHEME ARG...}: the key under a key scheme ({@code {name}}, the
 * {@code advisory.key-scheme} setting, one ARG: the fence name) or an advisory key template ({@code
 * {0}}, {@code {1}}…, a method's {@code advisoryKey}, one ARG per placeholder index), hashed by
 * {@link AdvisoryKeys#keyOfText} (ADR 58).
 */
@Command(
    name = "key",
    mixinStandardHelpOptions = true,
    description = {
      "Print the 64-bit advisory-lock key of a fence name (backend=advisory): the first 8 bytes of"
          + " SHA-256 of 'writer-fence:' + NAME, a signed big-endian integer.",
      "In pg_locks (locktype advisory) a key shows as classid = the high 32 bits and objid = the"
          + " low 32 bits.",
      "With --scheme: the key of the text SCHEME makes of the ARGs, its SHA-256 without the"
          + " 'writer-fence:' prefix; for example --scheme 'vibey.integrate:{0}:{1}' proj 42 is the"
          + " key of 'vibey.integrate:proj:42'."
    })
public final class KeyCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "NAME|ARG",
      description =
          "the fence name; with --scheme, the fence name for {name} or the arguments for {0},"
              + " {1}...")
  List<String> values;

  @Option(
      names = "--scheme",
      paramLabel = "SCHEME",
      description =
          "a key scheme with {name} (advisory.key-scheme, one ARG: the fence name), or an advisory"
              + " key template with {0}, {1}... (a method's advisoryKey, one ARG per index from 0);"
              + " {{ and }} are literal braces")
  String scheme;

  @Option(
      names = "--hex",
      description = "print the key as 16 hexadecimal digits (its two's-complement bits)")
  boolean hex;

  @Override
  public Integer call() {
    long key;
    try {
      key = scheme == null ? AdvisoryKeys.keyOf(only("NAME")) : AdvisoryKeys.keyOfText(keyText());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println(format(key, hex));
    out.flush();
    return 0;
  }

  /** The text the scheme makes of the ARGs. */
  private String keyText() {
    if (scheme.contains("{name}")) {
      return AdvisoryKeys.keyText(
          AdvisoryKeys.checkKeyScheme(scheme), FenceArguments.fenceName(only("NAME")));
    }
    FenceNameTemplate template = FenceNameTemplate.parseAdvisoryKey(scheme);
    int wanted = template.isConstant() ? 0 : template.argumentIndexes().last() + 1;
    if (values.size() != wanted) {
      throw new IllegalArgumentException(
          "writer-fence: advisory key template '"
              + scheme
              + "' takes "
              + wanted
              + " ARG(s), one per placeholder index from {0}, but "
              + values.size()
              + " were given");
    }
    return template.resolve(values.toArray());
  }

  /** The one value given; a second one is bad input naming what was expected. */
  private String only(String what) {
    if (values.size() != 1) {
      throw new IllegalArgumentException(
          "writer-fence: key takes one "
              + what
              + " here, not "
              + values.size()
              + " values "
              + values
              + "; several ARGs go with --scheme and a template using {0}, {1}...");
    }
    return values.get(0);
  }

  /**
   * @param key an advisory-lock key
   * @param hex whether to print it in hexadecimal
   * @return the signed decimal form, or {@code 0x} and 16 lower-case hexadecimal digits
   */
  static String format(long key, boolean hex) {
    return hex ? String.format("0x%016x", key) : Long.toString(key);
  }
}
