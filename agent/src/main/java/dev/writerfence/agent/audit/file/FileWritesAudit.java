package dev.writerfence.agent.audit.file;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameMatches;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.AuditMode;
import dev.writerfence.agent.audit.AuditSettings;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.WriteTarget;
import dev.writerfence.bootstrap.FileWriteGate;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * File writes under the prefixes of {@code audit.paths} (comma-separated directories or files, for
 * example the directory of an LMDB volume), through every JDK write path: the JDK's own chokepoints
 * are instrumented rather than each API, so {@code Files}, {@code FileChannel}, {@code
 * AsynchronousFileChannel}, {@code FileOutputStream}, {@code RandomAccessFile} and {@code
 * java.io.File} all reach one of them:
 *
 * <ul>
 *   <li>the default {@code FileSystemProvider} ({@code sun.nio.fs.*FileSystemProvider}): channel
 *       opens with a writing option, and by default-deny every other method taking a path first
 *       that is not a read (create, delete, copy target, move, links, set attribute, and whatever a
 *       later JDK adds);
 *   <li>the default file system's attribute views: {@code setTimes}, {@code setPermissions}, {@code
 *       setOwner}... (what {@code Files.setLastModifiedTime} and {@code
 *       Files.setPosixFilePermissions} reach);
 *   <li>{@code FileOutputStream.open} and {@code RandomAccessFile.open} (any mode but {@code r});
 *   <li>{@code java.io.File}'s changing methods (delete, rename, mkdir, create, set time or
 *       permission, delete on exit, and whatever is not a read), its {@code createTempFile} into a
 *       directory, and {@code java.io}'s file system ({@code java.io.UnixFileSystem}) beneath them,
 *       where its methods are not native.
 * </ul>
 *
 * <p>Opening for write is the write, so a refusal comes before any byte leaves. Reads never count.
 * Not seen: writes through native code (JNI, LMDB's own {@code mdb_env_open}; LMDB and RocksDB are
 * judged at their Java API instead, by the {@code lmdb} and {@code rocksdb} audits), writes through
 * a mapping or channel opened before the agent started, and other file systems' providers (zip).
 * Paths are compared as absolute, normalized text. In {@code enforce} mode a path that matches no
 * prefix as text is compared again by its real path (the audited roots resolved once here, the
 * written path's nearest existing ancestor per write), so a link from outside into an audited
 * folder is refused; {@code log} mode keeps the textual compare alone (cheaper: no system call for
 * a write elsewhere).
 */
public final class FileWritesAudit implements ClientAudit {
  /** The setting with the audited path prefixes. */
  public static final String PATHS = "audit.paths";

  private static final List<String> PROVIDERS =
      List.of(
          "sun.nio.fs.AbstractFileSystemProvider",
          "sun.nio.fs.UnixFileSystemProvider",
          "sun.nio.fs.LinuxFileSystemProvider",
          "sun.nio.fs.BsdFileSystemProvider",
          "sun.nio.fs.MacOSXFileSystemProvider",
          "sun.nio.fs.AixFileSystemProvider");

  /** Attribute views of the default file system whose {@code file} field is the path. */
  private static final List<String> ATTRIBUTE_VIEWS =
      List.of(
          "sun.nio.fs.UnixFileAttributeViews$Basic",
          "sun.nio.fs.UnixFileAttributeViews$Posix",
          "sun.nio.fs.UnixFileAttributeViews$Unix",
          "sun.nio.fs.LinuxDosFileAttributeView");

  private static final List<String> IO_FILE_SYSTEMS = List.of("java.io.UnixFileSystem");

  /** Methods of the provider and of {@code java.io}'s file system that only read or compute. */
  private static final Set<String> READS =
      Set.of(
          "checkAccess",
          "isSameFile",
          "isHidden",
          "isReadable",
          "isWritable",
          "isExecutable",
          "isAbsolute",
          "isInvalid",
          "newDirectoryStream",
          "newInputStream",
          "hasBooleanAttributes",
          "resolve",
          "canonicalize",
          "normalize",
          "prefixLength",
          "fromURIPath",
          "compare");

  /**
   * Tests of a file ({@code isDirectory}, {@code isRegularFile}, {@code isSymbolicLink}...), which
   * providers since Java 17 implement themselves for {@code Files.isDirectory} and its kin: reads.
   */
  private static final java.util.regex.Pattern TESTS = java.util.regex.Pattern.compile("is[A-Z].*");

  /** {@code java.io.File}'s methods that read or compute: names, tests, listings, conversions. */
  private static final String FILE_READS =
      "(get|is|can|list|to|compareTo|equals|hashCode|length|lastModified|exists)([A-Z].*)?";

  private static final Set<String> OPENS =
      Set.of("newByteChannel", "newFileChannel", "newAsynchronousFileChannel");

  private List<String> prefixes = List.of();

  @Override
  public String id() {
    return FileWriteGate.CLIENT;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of(); // the JDK's frames are skipped anyway
  }

  @Override
  public WriteTarget describe(Object target) {
    return WriteTarget.UNKNOWN; // the gate passes the path as text
  }

  /**
   * Reads {@code audit.paths} and hands the prefixes to the bootstrap gate, with the agent's own
   * files (the report and its temporary siblings, the bootstrap jar) excluded.
   *
   * @throws AgentConfigurationException when an entry is empty or not a path
   */
  @Override
  public void configure(AgentSettings settings) {
    prefixes = parse(settings.get(PATHS).orElse(""));
    if (prefixes.isEmpty()) {
      return;
    }
    List<String> excluded = new ArrayList<>();
    AuditSettings.from(settings)
        .report()
        .ifPresent(r -> excluded.add(r.toAbsolutePath().normalize().toString()));
    excluded.add(
        Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize()
            + "/writer-fence-bootstrap-");
    boolean enforce = AuditSettings.from(settings).mode() == AuditMode.ENFORCE;
    FileWriteGate.configure(
        (enforce ? withRealPaths(prefixes) : prefixes).toArray(new String[0]),
        excluded.toArray(new String[0]),
        Path.of("").toAbsolutePath().toString(),
        enforce);
  }

  /**
   * @param prefixes absolute, normalized prefixes
   * @return them, each followed by its real path when it exists and differs (a root that is itself
   *     a link, or lies under one)
   */
  static List<String> withRealPaths(List<String> prefixes) {
    List<String> result = new ArrayList<>(prefixes);
    for (String prefix : prefixes) {
      try {
        String real = Path.of(prefix).toRealPath().toString();
        if (!result.contains(real)) {
          result.add(real);
        }
      } catch (IOException e) {
        // Not there yet: its text is all there is to compare (created later, through no link).
      }
    }
    return List.copyOf(result);
  }

  /**
   * @param value the value of {@code audit.paths}
   * @return the absolute, normalized prefixes, without a trailing separator
   * @throws AgentConfigurationException when an entry is empty or not a path
   */
  static List<String> parse(String value) {
    List<String> result = new ArrayList<>();
    if (value.isBlank()) {
      return result;
    }
    for (String entry : value.split(",", -1)) {
      String trimmed = entry.strip();
      if (trimmed.isEmpty()) {
        throw new AgentConfigurationException(
            "writer-fence agent: "
                + PATHS
                + " '"
                + value
                + "' has an empty entry: use comma-separated directories or files, e.g."
                + " /var/lib/volume,/data/index");
      }
      try {
        String path = Path.of(trimmed).toAbsolutePath().normalize().toString();
        result.add(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
      } catch (InvalidPathException e) {
        throw new AgentConfigurationException(
            "writer-fence agent: " + PATHS + " entry '" + trimmed + "' is not a path: " + e);
      }
    }
    return List.copyOf(result);
  }

  /**
   * The JDK classes are loaded before premain: they are retransformed, with Byte Buddy, at start.
   */
  @Override
  public Prefilter prefilter() {
    return prefixes.isEmpty() ? Prefilter.none() : Prefilter.atStart();
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    if (prefixes.isEmpty()) {
      return builder; // no JDK class is touched unless file writes are audited
    }
    return builder
        .type(namedOneOf(PROVIDERS.toArray(new String[0])))
        .transform(
            AuditMatchers.advice(
                namedOneOf(OPENS.toArray(new String[0]))
                    .and(takesArgument(1, Set.class))
                    .and(changes()),
                OpenAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                named("copy").and(takesArgument(1, Path.class)).and(changes()),
                CopyAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                named("move").and(takesArgument(1, Path.class)).and(changes()),
                MoveAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                takesArgument(0, Path.class)
                    .and(not(namedOneOf("copy", "move")))
                    .and(not(namedOneOf(OPENS.toArray(new String[0]))))
                    .and(changes()),
                PathAdvice.class.getName()))
        .type(named("java.io.FileOutputStream"))
        .transform(
            AuditMatchers.advice(
                named("open").and(takesArguments(String.class, boolean.class)),
                FileOutputStreamAdvice.class.getName()))
        .type(named("java.io.RandomAccessFile"))
        .transform(
            AuditMatchers.advice(
                named("open").and(takesArguments(String.class, int.class)),
                RandomAccessFileAdvice.class.getName()))
        .type(namedOneOf(IO_FILE_SYSTEMS.toArray(new String[0])))
        .transform(
            AuditMatchers.advice(
                named("rename").and(takesArguments(2)).and(changes()), MoveAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                takesArgument(0, java.io.File.class)
                    .or(named("createFileExclusively"))
                    .and(not(named("rename")))
                    .and(changes()),
                PathAdvice.class.getName()))
        .type(namedOneOf(ATTRIBUTE_VIEWS.toArray(new String[0])))
        .transform(
            AuditMatchers.advice(
                changes().and(not(namedOneOf("name", "size"))),
                AttributeViewAdvice.class.getName()))
        .type(named("java.io.File"))
        .transform(
            AuditMatchers.advice(
                named("renameTo").and(takesArguments(1)).and(changes()),
                FileRenameAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                not(named("renameTo")).and(not(nameMatches(FILE_READS))).and(changes()),
                FileAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                named("createTempFile").and(isStatic()).and(takesArguments(3)),
                TempFileAdvice.class.getName()));
  }

  /**
   * Default-deny over a JDK class's own methods: every method with a body that is not a read.
   * Private helpers are left out: they run inside a public method that is already judged.
   */
  private static ElementMatcher.Junction<MethodDescription> changes() {
    return not(isStatic())
        .and(not(isAbstract()))
        .and(not(isNative()))
        .and(isPublic())
        .and(not(isConstructor()))
        .and(not(isBridge()))
        .and(not(isSynthetic()))
        .and(
            (ElementMatcher<MethodDescription>)
                m ->
                    !READS.contains(m.getInternalName())
                        && !TESTS.matcher(m.getInternalName()).matches()
                        && !AuditMatchers.isRead(m.getInternalName()));
  }
}
