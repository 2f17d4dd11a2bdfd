package dev.writerfence.agent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which classes a feature might instrument, judged from what the JVM hands a {@code
 * ClassFileTransformer} (the class name, its loader, the raw class file) with JDK code only, so
 * that no Byte Buddy class loads for a class that fails it. A class that passes is handed to Byte
 * Buddy, whose matchers decide; a class that fails never reaches Byte Buddy, so a prefilter must
 * pass every class the feature's matchers could match (it may pass more). Immutable.
 *
 * <p>Names are the JVM's internal form ({@code com/acme/Uploader}, {@code Outer$Inner}).
 */
public final class Prefilter {
  private static final Prefilter NONE = new Prefilter(Set.of(), List.of(), List.of(), false);

  private final Set<String> names;
  private final List<String> prefixes;
  private final List<Scan> scans;
  private final boolean atStart;

  private Prefilter(Set<String> names, List<String> prefixes, List<Scan> scans, boolean atStart) {
    this.names = names;
    this.prefixes = prefixes;
    this.scans = scans;
    this.atStart = atStart;
  }

  /**
   * @return a prefilter that passes no class: the feature instruments nothing
   */
  public static Prefilter none() {
    return NONE;
  }

  /**
   * @param binaryNames exact binary names ({@code com.acme.Uploader}, {@code Outer$Inner}); not
   *     {@code null}
   * @return a prefilter passing exactly those classes, from any class loader
   */
  public static Prefilter named(Iterable<String> binaryNames) {
    Set<String> internal = new HashSet<>();
    binaryNames.forEach(n -> internal.add(n.replace('.', '/')));
    return new Prefilter(Set.copyOf(internal), List.of(), List.of(), false);
  }

  /**
   * @param packagePrefixes binary name prefixes, normally packages with a trailing dot ({@code
   *     software.amazon.awssdk.services.s3.}); not {@code null}
   * @return a prefilter passing every class whose name starts with one of them, from any loader
   */
  public static Prefilter packages(Iterable<String> packagePrefixes) {
    List<String> internal = new ArrayList<>();
    packagePrefixes.forEach(p -> internal.add(p.replace('.', '/')));
    return new Prefilter(Set.of(), List.copyOf(internal), List.of(), false);
  }

  /**
   * A search of the raw class file for a type's descriptor: a class that uses an annotation names
   * its descriptor in the constant pool, so a class without it cannot carry the annotation. No
   * parsing, a byte search.
   *
   * @param annotationName the annotation's binary name, for example {@code
   *     dev.writerfence.annotation.WriterFenced}; not {@code null}
   * @param excludedPrefixes binary name prefixes never scanned (the JDK's packages, say)
   * @return a prefilter passing classes not from the bootstrap loader, outside {@code
   *     excludedPrefixes}, whose class file names the annotation's descriptor
   */
  public static Prefilter mentioning(String annotationName, List<String> excludedPrefixes) {
    byte[] descriptor =
        ("L" + annotationName.replace('.', '/') + ";").getBytes(StandardCharsets.UTF_8);
    List<String> excluded = new ArrayList<>();
    excludedPrefixes.forEach(p -> excluded.add(p.replace('.', '/')));
    return new Prefilter(
        Set.of(),
        List.of(),
        List.of(
            new Scan(
                descriptor,
                List.copyOf(excluded),
                new java.util.concurrent.CopyOnWriteArrayList<>())),
        false);
  }

  /**
   * For a feature that must instrument classes loaded before premain ran (the JDK's own), which
   * only a retransformation at start reaches: Byte Buddy is then built and installed at start, at
   * its full start-up cost.
   *
   * @return a prefilter that asks for Byte Buddy at start
   */
  public static Prefilter atStart() {
    return new Prefilter(Set.of(), List.of(), List.of(), true);
  }

  /**
   * @param other another prefilter; not {@code null}
   * @return a prefilter passing what either passes, and asking for Byte Buddy at start when either
   *     does
   */
  public Prefilter or(Prefilter other) {
    Set<String> n = new HashSet<>(names);
    n.addAll(other.names);
    List<String> p = new ArrayList<>(prefixes);
    p.addAll(other.prefixes);
    List<Scan> s = new ArrayList<>(scans);
    s.addAll(other.scans);
    return new Prefilter(Set.copyOf(n), List.copyOf(p), List.copyOf(s), atStart || other.atStart);
  }

  /**
   * @return {@code true} when Byte Buddy must be built and installed at start ({@link #atStart})
   */
  public boolean needsByteBuddyAtStart() {
    return atStart;
  }

  /**
   * @return {@code true} when this prefilter passes no class and needs nothing at start
   */
  public boolean isEmpty() {
    return !atStart && names.isEmpty() && prefixes.isEmpty() && scans.isEmpty();
  }

  /**
   * @param internalName the class's internal name, as the JVM passes it; not {@code null}
   * @param loader its defining loader, {@code null} for the bootstrap loader
   * @param classFile the class file bytes; not {@code null}
   * @return {@code true} when a feature might instrument the class
   */
  public boolean mightInstrument(String internalName, ClassLoader loader, byte[] classFile) {
    if (namesOrPackages(internalName)) {
      return true;
    }
    for (Scan scan : scans) {
      if (scan.passes(internalName, loader, classFile)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether this prefilter passes the class on its own evidence: its name, its package, or (for a
   * {@link #mentioning} prefilter) the annotation's descriptor in its class file, not a superclass
   * that passed before. Unlike {@link #mightInstrument} it remembers nothing, so it may be asked
   * about a class again.
   *
   * @param internalName the class's internal name; not {@code null}
   * @param loader its defining loader, {@code null} for the bootstrap loader
   * @param classFile the class file bytes; not {@code null}
   * @return {@code true} when the class itself is what this prefilter looks for
   */
  public boolean claims(String internalName, ClassLoader loader, byte[] classFile) {
    if (namesOrPackages(internalName)) {
      return true;
    }
    for (Scan scan : scans) {
      if (scan.scanned(internalName, loader) && Scan.contains(classFile, scan.needle())) {
        return true;
      }
    }
    return false;
  }

  private boolean namesOrPackages(String internalName) {
    if (names.contains(internalName)) {
      return true;
    }
    for (String prefix : prefixes) {
      if (internalName.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "Prefilter[names="
        + names
        + ", prefixes="
        + prefixes
        + ", scans="
        + scans.size()
        + ", atStart="
        + atStart
        + "]";
  }

  /**
   * The annotation may also be inherited ({@code @WriterFenced} is {@code @Inherited}): a subclass
   * of a class that named it does not name it itself, but names its superclass. A class's
   * superclass loads first, so the classes that passed are remembered ({@code passed}, internal
   * names as bytes) and a class file naming one of them passes too. Naming a passed class for
   * another reason also passes: that costs a closer look, never a missed class.
   */
  private record Scan(byte[] needle, List<String> excluded, List<byte[]> passed) {
    boolean passes(String internalName, ClassLoader loader, byte[] classFile) {
      if (!scanned(internalName, loader)) {
        return false;
      }
      boolean passes = contains(classFile, needle);
      for (int i = 0; !passes && i < passed.size(); i++) {
        passes = contains(classFile, passed.get(i));
      }
      if (passes) {
        passed.add(internalName.getBytes(StandardCharsets.UTF_8));
      }
      return passes;
    }

    /** Classes of the bootstrap loader and of the excluded packages are never scanned. */
    boolean scanned(String internalName, ClassLoader loader) {
      if (loader == null) {
        return false;
      }
      for (String prefix : excluded) {
        if (internalName.startsWith(prefix)) {
          return false;
        }
      }
      return true;
    }

    static boolean contains(byte[] haystack, byte[] needle) {
      byte first = needle[0];
      int last = haystack.length - needle.length;
      outer:
      for (int i = 0; i <= last; i++) {
        if (haystack[i] != first) {
          continue;
        }
        for (int k = 1; k < needle.length; k++) {
          if (haystack[i + k] != needle[k]) {
            continue outer;
          }
        }
        return true;
      }
      return false;
    }
  }
}
