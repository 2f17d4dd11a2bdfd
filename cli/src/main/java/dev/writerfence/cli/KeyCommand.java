package dev.writerfence.cli;

import dev.writerfence.store.advisory.AdvisoryKeys;
import java.io.PrintWriter;
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
 */
@Command(
    name = "key",
    mixinStandardHelpOptions = true,
    description = {
      "Print the 64-bit advisory-lock key of a fence name (backend=advisory): the first 8 bytes of"
          + " SHA-256 of 'writer-fence:' + NAME, a signed big-endian integer.",
      "In pg_locks (locktype advisory) a key shows as classid = the high 32 bits and objid = the"
          + " low 32 bits."
    })
public final class KeyCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "NAME", description = "the fence name")
  String fenceName;

  @Option(
      names = "--hex",
      description = "print the key as 16 hexadecimal digits (its two's-complement bits)")
  boolean hex;

  @Override
  public Integer call() {
    long key;
    try {
      key = AdvisoryKeys.keyOf(fenceName);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println(format(key, hex));
    out.flush();
    return 0;
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
