package dev.writerfence.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The functions of the SQL contract as the shipped migrations define them, read from the migrations
 * themselves ({@link FenceSchema#migrationTemplate()}, every version in order), so that a check of
 * an installed contract (the CLI's {@code schema verify}) has no second list to keep in step: each
 * function's name and argument types, whether it is {@code SECURITY DEFINER}, whether it pins
 * {@code search_path}, and whether the migration grants EXECUTE on it to the application role.
 */
public final class ContractFunctions {
  /**
   * One function of the contract.
   *
   * @param name its name inside the contract's schema, for example {@code release}
   * @param argumentTypes its argument types as PostgreSQL prints them ({@code oidvectortypes}), for
   *     example {@code [text, uuid]}; empty for none
   * @param securityDefiner whether it runs with its owner's rights
   * @param pinnedSearchPath whether it sets its own {@code search_path}
   * @param granted whether the application role gets EXECUTE on it
   */
  public record Function(
      String name,
      List<String> argumentTypes,
      boolean securityDefiner,
      boolean pinnedSearchPath,
      boolean granted) {
    /** Copies the argument types. */
    public Function {
      argumentTypes = List.copyOf(argumentTypes);
    }

    /**
     * @return the name with its argument types, for example {@code release(text, uuid)}: what tells
     *     overloads apart
     */
    public String signature() {
      return name + "(" + String.join(", ", argumentTypes) + ")";
    }
  }

  private static final String SCHEMA = Pattern.quote("${writer_fence_schema}.");
  private static final Pattern CREATE =
      Pattern.compile(
          "CREATE OR REPLACE FUNCTION " + SCHEMA + "(\\w+)\\(([^)]*)\\)(.*?)\\bAS \\$fn\\$",
          Pattern.DOTALL);
  private static final Pattern GRANT =
      Pattern.compile(
          "GRANT EXECUTE ON FUNCTION(.*?)TO " + Pattern.quote("${writer_fence_role}") + ";",
          Pattern.DOTALL);
  private static final Pattern GRANTED_SIGNATURE = Pattern.compile(SCHEMA + "(\\w+)\\(([^)]*)\\)");

  private static final List<Function> FUNCTIONS = parse(FenceSchema.migrationTemplate());

  private ContractFunctions() {}

  /**
   * @return every function of the shipped contract, in the order the migration creates them
   */
  public static List<Function> all() {
    return FUNCTIONS;
  }

  /**
   * Reads the functions of a migration template. A function created again (a later version's {@code
   * CREATE OR REPLACE} of the same signature) keeps its first place and takes the later header.
   *
   * @param template migrations with their placeholders unfilled, in the order they run
   * @return its functions, in order of first creation
   * @throws IllegalStateException when it creates no function, or grants EXECUTE on a function it
   *     does not create
   */
  static List<Function> parse(String template) {
    String sql =
        template
            .lines()
            .filter(line -> !line.strip().startsWith("--"))
            .collect(Collectors.joining("\n"));
    Set<String> granted = grantedSignatures(sql);
    Map<String, Function> functions = new LinkedHashMap<>();
    Matcher m = CREATE.matcher(sql);
    while (m.find()) {
      List<String> types = new ArrayList<>();
      for (String argument : split(m.group(2))) {
        // "p_fence_name text": the name, then the type. An OUT parameter is part of the result,
        // not of the signature (PostgreSQL's proargtypes leaves it out too).
        if (!argument.startsWith("OUT ")) {
          types.add(argument.substring(argument.indexOf(' ') + 1).strip());
        }
      }
      String name = m.group(1);
      String header = m.group(3);
      String signature = name + "(" + String.join(", ", types) + ")";
      functions.put(
          signature,
          new Function(
              name,
              types,
              header.contains("SECURITY DEFINER"),
              header.contains("SET search_path"),
              granted.contains(signature)));
    }
    if (functions.isEmpty()) {
      throw new IllegalStateException("writer-fence: the migration creates no function");
    }
    granted.removeAll(functions.keySet());
    if (!granted.isEmpty()) {
      throw new IllegalStateException(
          "writer-fence: the migration grants EXECUTE on functions it does not create: " + granted);
    }
    return List.copyOf(functions.values());
  }

  private static Set<String> grantedSignatures(String sql) {
    Set<String> granted = new LinkedHashSet<>();
    Matcher grant = GRANT.matcher(sql);
    while (grant.find()) {
      Matcher signature = GRANTED_SIGNATURE.matcher(grant.group(1));
      while (signature.find()) {
        granted.add(signature.group(1) + "(" + String.join(", ", split(signature.group(2))) + ")");
      }
    }
    return granted;
  }

  /** The comma-separated items of an argument list, stripped; none for a blank list. */
  private static List<String> split(String list) {
    return list.isBlank() ? List.of() : Arrays.stream(list.split(",")).map(String::strip).toList();
  }
}
