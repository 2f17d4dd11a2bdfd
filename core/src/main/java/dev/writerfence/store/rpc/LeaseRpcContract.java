package dev.writerfence.store.rpc;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The names of an existing lease-RPC pair, as a deployment runs it (ADR 57): an acquire function
 * that answers {@code true} when it took a free or expired row and {@code false} when busy, and a
 * release function that frees the row only for the same holder token, both called with named
 * parameters. Every parameter but the holder token has a default on the server.
 *
 * @param acquireFunction the acquire function, {@code name} or {@code schema.name}, lower-case SQL
 *     identifiers (quoted in the call, so reserved words are fine)
 * @param releaseFunction the release function, the same form
 * @param holderTokenParameter the holder token's parameter (a {@code uuid}), an identifier; the
 *     four parameter names differ from each other
 * @param holderParameter the holder label's parameter ({@code text}); a lease without a label
 *     passes nothing, and the server's default stands
 * @param ttlParameter the TTL's parameter, whole seconds ({@code integer})
 * @param fenceNameParameter the fence name's parameter, or empty to pass none: then every fence
 *     name of the store maps to the one row the server's default names
 */
public record LeaseRpcContract(
    String acquireFunction,
    String releaseFunction,
    String holderTokenParameter,
    String holderParameter,
    String ttlParameter,
    Optional<String> fenceNameParameter) {

  /** The acquire function of the deployment this backend was written for. */
  public static final String DEFAULT_ACQUIRE_FUNCTION = "public.corpus_writer_fence_lease_acquire";

  /** Its release function. */
  public static final String DEFAULT_RELEASE_FUNCTION = "public.corpus_writer_fence_lease_release";

  /** Its holder token's parameter. */
  public static final String DEFAULT_HOLDER_TOKEN_PARAMETER = "p_holder_token";

  /** Its holder label's parameter. */
  public static final String DEFAULT_HOLDER_PARAMETER = "p_holder";

  /** Its TTL's parameter. */
  public static final String DEFAULT_TTL_PARAMETER = "p_ttl_seconds";

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final Pattern FUNCTION =
      Pattern.compile("([a-z_][a-z0-9_]{0,62}\\.)?[a-z_][a-z0-9_]{0,62}");

  /**
   * Checks every name.
   *
   * @throws IllegalArgumentException naming the value and the rule it breaks, or both settings when
   *     two parameter names are the same
   */
  public LeaseRpcContract {
    function("lease-rpc.acquire-function", acquireFunction);
    function("lease-rpc.release-function", releaseFunction);
    parameter("lease-rpc.holder-token-parameter", holderTokenParameter);
    parameter("lease-rpc.holder-parameter", holderParameter);
    parameter("lease-rpc.ttl-parameter", ttlParameter);
    if (fenceNameParameter == null) {
      throw new IllegalArgumentException(
          "writer-fence: lease-rpc.fence-name-parameter is null: give Optional.empty() to pass"
              + " none");
    }
    fenceNameParameter.ifPresent(p -> parameter("lease-rpc.fence-name-parameter", p));
    distinct(
        "lease-rpc.holder-token-parameter", holderTokenParameter,
        "lease-rpc.holder-parameter", holderParameter,
        "lease-rpc.ttl-parameter", ttlParameter,
        "lease-rpc.fence-name-parameter", fenceNameParameter.orElse(null));
  }

  /**
   * A call names each parameter once: two settings with the same name would fail only at the call,
   * with "argument name used more than once" and no setting named.
   *
   * @param keysAndNames setting, name, setting, name, ...; a {@code null} name is not passed
   */
  private static void distinct(String... keysAndNames) {
    for (int i = 1; i < keysAndNames.length; i += 2) {
      for (int j = i + 2; j < keysAndNames.length; j += 2) {
        if (keysAndNames[i] != null && keysAndNames[i].equals(keysAndNames[j])) {
          throw new IllegalArgumentException(
              "writer-fence: "
                  + keysAndNames[i - 1]
                  + " and "
                  + keysAndNames[j - 1]
                  + " are both '"
                  + keysAndNames[i]
                  + "': each parameter of the call needs a name of its own");
        }
      }
    }
  }

  /**
   * @return the names of {@code public.corpus_writer_fence_lease_acquire} and {@code _release} with
   *     the parameters {@code p_holder_token}, {@code p_holder}, {@code p_ttl_seconds}, and no
   *     fence name passed (the server's default row, as the deployment's own writers use it)
   */
  public static LeaseRpcContract defaults() {
    return new LeaseRpcContract(
        DEFAULT_ACQUIRE_FUNCTION,
        DEFAULT_RELEASE_FUNCTION,
        DEFAULT_HOLDER_TOKEN_PARAMETER,
        DEFAULT_HOLDER_PARAMETER,
        DEFAULT_TTL_PARAMETER,
        Optional.empty());
  }

  /**
   * @param parameter the fence name's parameter, such as {@code p_fence_name}, or empty to pass
   *     none
   * @return a copy with it
   * @throws IllegalArgumentException naming the value when it is not an identifier
   */
  public LeaseRpcContract withFenceNameParameter(Optional<String> parameter) {
    return new LeaseRpcContract(
        acquireFunction,
        releaseFunction,
        holderTokenParameter,
        holderParameter,
        ttlParameter,
        parameter);
  }

  /**
   * @param key the setting, for the message
   * @param value a function name
   * @return the value
   * @throws IllegalArgumentException naming the key and value when it is not {@code name} or {@code
   *     schema.name} of lower-case identifiers
   */
  public static String function(String key, String value) {
    if (value == null || !FUNCTION.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "writer-fence: "
              + key
              + " '"
              + value
              + "' is not allowed: a function name or schema.name, lower-case SQL identifiers"
              + " ([a-z_][a-z0-9_]*, at most 63 characters each)");
    }
    return value;
  }

  /**
   * @param key the setting, for the message
   * @param value a parameter name
   * @return the value
   * @throws IllegalArgumentException naming the key and value when it is not a lower-case
   *     identifier
   */
  public static String parameter(String key, String value) {
    if (value == null || !IDENTIFIER.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "writer-fence: "
              + key
              + " '"
              + value
              + "' is not allowed: a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63"
              + " characters)");
    }
    return value;
  }
}
