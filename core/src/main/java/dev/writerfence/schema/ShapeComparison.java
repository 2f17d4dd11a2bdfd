package dev.writerfence.schema;

import dev.writerfence.schema.CatalogShape.Column;
import dev.writerfence.schema.CatalogShape.Table;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names every way a schema's catalog differs from the shipped contract's (ADR 50).
 *
 * <p>What an object is measured against: with a known installed version {@code v}, version {@code
 * v}'s shape; an object that version lacks but a later one has (an older migration applied again
 * over a newer install), the newest shape that has it. Everything version {@code v} has must be
 * there. With no recognisable version (no {@code schema_version()}), what is there must be as some
 * shipped version has it, and each contract table must have at least the columns of the version
 * that created it; missing functions are no difference, the install creates them. Tables and
 * functions under names the contract never used are not looked at, except that a contract table's
 * extra NOT NULL column without a default is a difference: every insert of the contract would fail.
 */
final class ShapeComparison {
  private static final Pattern PRIMARY_KEY = Pattern.compile("PRIMARY KEY \\((.*)\\)");

  private final List<ShippedShapes.Version> shipped;
  private final CatalogShape installed;
  private final CatalogShape atVersion;
  private final List<String> differences = new ArrayList<>();

  /**
   * @param shipped every shipped version, oldest first
   * @param installed the schema's catalog
   * @param version the installed version, one of {@code shipped}; 0 when not recognised
   */
  ShapeComparison(List<ShippedShapes.Version> shipped, CatalogShape installed, int version) {
    this.shipped = shipped;
    this.installed = installed;
    this.atVersion =
        shipped.stream()
            .filter(v -> v.version() == version)
            .map(ShippedShapes.Version::shape)
            .findFirst()
            .orElse(null);
  }

  /**
   * @return one line per difference, for example {@code lease.fence_name: no primary key}; empty
   *     when the schema has the contract's shape
   */
  List<String> differences() {
    differences.clear();
    for (String name : contractNames(CatalogShape::tables)) {
      Table table = installed.tables().get(name);
      if (table != null) {
        compareTable(table);
      } else if (atVersion != null && atVersion.tables().containsKey(name)) {
        differences.add("table " + name + ": missing");
      }
    }
    Set<String> functionNames = new LinkedHashSet<>();
    for (ShippedShapes.Version v : shipped) {
      v.shape().functions().values().forEach(f -> functionNames.add(f.name()));
    }
    for (CatalogShape.Function function : installed.functions().values()) {
      if (functionNames.contains(function.name())) {
        compareFunction(function);
      }
    }
    if (atVersion != null) {
      for (String signature : atVersion.functions().keySet()) {
        if (!installed.functions().containsKey(signature)) {
          differences.add("function " + signature + ": missing");
        }
      }
    }
    return List.copyOf(differences);
  }

  private void compareTable(Table table) {
    String name = table.name();
    Table reference = reference(CatalogShape::tables, name);
    Table required =
        atVersion != null && atVersion.tables().containsKey(name)
            ? atVersion.tables().get(name)
            : first(CatalogShape::tables, name);
    for (String column : required.columns().keySet()) {
      if (!table.columns().containsKey(column)) {
        differences.add(name + "." + column + ": missing");
      }
    }
    for (Column column : table.columns().values()) {
      Column expected = reference.columns().get(column.name());
      if (expected == null) {
        expected = newestColumn(name, column.name());
      }
      String where = name + "." + column.name();
      if (expected == null) {
        if (column.notNull() && !column.hasDefault()) {
          differences.add(
              where + ": NOT NULL without a default, not in the contract (its inserts would fail)");
        }
        continue;
      }
      if (!expected.type().equals(column.type())) {
        differences.add(where + ": " + column.type() + ", the contract has " + expected.type());
      }
      if (expected.notNull() != column.notNull()) {
        differences.add(
            where
                + (column.notNull()
                    ? ": NOT NULL, the contract allows NULL"
                    : ": allows NULL, the contract has NOT NULL"));
      }
    }
    if (!Objects.equals(reference.primaryKey(), table.primaryKey())) {
      if (table.primaryKey() == null) {
        differences.add(keyColumns(reference.primaryKey(), name) + ": no primary key");
      } else {
        differences.add(
            name
                + ": "
                + table.primaryKey()
                + (reference.primaryKey() == null
                    ? ", the contract has none"
                    : ", the contract has " + reference.primaryKey()));
      }
    }
    for (String constraint : table.constraints()) {
      if (!reference.constraints().contains(constraint)) {
        differences.add(name + ": constraint " + constraint + " is not the contract's");
      }
    }
    for (String constraint : required.constraints()) {
      if (!table.constraints().contains(constraint)) {
        differences.add(name + ": no constraint " + constraint);
      }
    }
    for (String trigger : table.triggers()) {
      if (!reference.triggers().contains(trigger)) {
        differences.add(
            name + ": " + trigger + " is not the contract's (it can change what acquire writes)");
      }
    }
  }

  private void compareFunction(CatalogShape.Function function) {
    String signature = function.signature();
    if (contractNames(CatalogShape::functions).stream().noneMatch(signature::equals)) {
      List<String> contract = new ArrayList<>();
      for (String s : contractNames(CatalogShape::functions)) {
        if (s.startsWith(function.name() + "(")) {
          contract.add(s);
        }
      }
      differences.add(
          "function "
              + signature
              + ": not a signature of the contract, which has "
              + String.join(", ", contract));
      return;
    }
    if (atVersion == null && anyVersionHas(function)) {
      return; // no version to hold it to: any shipped version's definition will do
    }
    CatalogShape.Function expected = reference(CatalogShape::functions, signature);
    String where = "function " + signature + ": ";
    if (!expected.arguments().equals(function.arguments())) {
      differences.add(
          where
              + "arguments ("
              + function.arguments()
              + "), the contract's ("
              + expected.arguments()
              + ")");
    }
    if (!expected.result().equals(function.result())) {
      differences.add(
          where + "returns " + function.result() + ", the contract returns " + expected.result());
    }
    if (!expected.language().equals(function.language())) {
      differences.add(
          where + "LANGUAGE " + function.language() + ", the contract's is " + expected.language());
    }
    if (expected.securityDefiner() != function.securityDefiner()) {
      differences.add(
          where
              + (function.securityDefiner()
                  ? "SECURITY DEFINER, the contract's is not"
                  : "not SECURITY DEFINER, the contract's is"));
    }
    if (!expected.volatility().equals(function.volatility())) {
      differences.add(
          where
              + volatility(function.volatility())
              + ", the contract's is "
              + volatility(expected.volatility()));
    }
    if (!expected.settings().equals(function.settings())) {
      differences.add(
          where + "SET " + function.settings() + ", the contract has SET " + expected.settings());
    }
    if (!expected.body().equals(function.body())) {
      differences.add(
          where
              + "another body (md5 "
              + md5(function.body())
              + ", the contract's "
              + md5(expected.body())
              + ")");
    }
  }

  private boolean anyVersionHas(CatalogShape.Function function) {
    return shipped.stream()
        .anyMatch(v -> function.equals(v.shape().functions().get(function.signature())));
  }

  /** Version v's object, or else the newest shipped version's that has it; null when none has. */
  private <T> T reference(Function<CatalogShape, Map<String, T>> objects, String name) {
    if (atVersion != null && objects.apply(atVersion).containsKey(name)) {
      return objects.apply(atVersion).get(name);
    }
    for (int i = shipped.size() - 1; i >= 0; i--) {
      T found = objects.apply(shipped.get(i).shape()).get(name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** The oldest shipped version's object of that name: what every version has had. */
  private <T> T first(Function<CatalogShape, Map<String, T>> objects, String name) {
    for (ShippedShapes.Version v : shipped) {
      T found = objects.apply(v.shape()).get(name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** The newest shipped version's column of that table and name; null when none has it. */
  private Column newestColumn(String table, String column) {
    for (int i = shipped.size() - 1; i >= 0; i--) {
      Table t = shipped.get(i).shape().tables().get(table);
      if (t != null && t.columns().containsKey(column)) {
        return t.columns().get(column);
      }
    }
    return null;
  }

  private Set<String> contractNames(Function<CatalogShape, ? extends Map<String, ?>> objects) {
    Set<String> names = new LinkedHashSet<>();
    shipped.forEach(v -> names.addAll(objects.apply(v.shape()).keySet()));
    return names;
  }

  private static String keyColumns(String primaryKey, String table) {
    Matcher m = primaryKey == null ? null : PRIMARY_KEY.matcher(primaryKey);
    if (m == null || !m.matches()) {
      return table;
    }
    List<String> columns = new ArrayList<>();
    for (String column : m.group(1).split(", ")) {
      columns.add(table + "." + column);
    }
    return String.join(", ", columns);
  }

  private static String volatility(String code) {
    return switch (code) {
      case "i" -> "IMMUTABLE";
      case "s" -> "STABLE";
      default -> "VOLATILE";
    };
  }

  private static String md5(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
