package dev.writerfence.bootstrap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * The file-write side of {@link AuditGate}: advice inlined into the JDK's few file-system
 * chokepoints (the {@code FileSystemProvider} implementation, {@code FileOutputStream} and {@code
 * RandomAccessFile} open, the {@code java.io.FileSystem} implementation) calls it with the path
 * being written, and it passes the write to {@link AuditGate} only when the path lies under one of
 * the audited prefixes ({@code audit.paths}).
 *
 * <p>It runs inside the JDK on every file open, so the path that does not concern the audit is
 * cheap: no prefixes, a read-only open, or a path outside every prefix returns after a few string
 * compares, without allocation for absolute paths. Every {@code enter...} method returns whether it
 * entered the gate; the advice passes that to {@link #exit(boolean)}.
 *
 * <p>With links resolved (the agent's enforce mode), a path outside every prefix as text is
 * compared once more by its real path: its nearest existing ancestor (the path itself when it
 * exists) resolved with {@code toRealPath}, the rest appended, so a directory or file link from
 * outside into an audited folder is caught. That costs a few system calls per write outside the
 * prefixes; the prefixes themselves are resolved once, by the caller. Not resolved: a dangling link
 * (its target does not exist yet), which the nearest existing ancestor skips.
 *
 * <p>Never audited: paths under the excluded prefixes (the agent's own report and its temporary
 * files), and writes made while the thread is already inside an audited write (the gate's nesting,
 * which also covers anything the audit's sink does itself).
 */
public final class FileWriteGate {
  /** The client id in reports and in {@code audit.require-fence.file}. */
  public static final String CLIENT = "file";

  /** {@code RandomAccessFile}'s read-only open mode ({@code O_RDONLY}); any other mode writes. */
  private static final int RANDOM_ACCESS_READ_ONLY = 1;

  /** Options outside {@link StandardOpenOption} known not to write (link and JDK extended ones). */
  private static final Set<String> NOT_WRITING =
      Set.of("NOFOLLOW_LINKS", "DIRECT", "NOSHARE_READ", "NOSHARE_WRITE", "NOSHARE_DELETE");

  private static volatile String[] prefixes;
  private static volatile String[] excluded = new String[0];
  private static volatile String workingDirectory;
  private static volatile boolean resolveLinks;

  private FileWriteGate() {}

  /**
   * Sets what is audited, replacing any earlier setting.
   *
   * @param auditedPrefixes absolute, normalized directory or file paths without a trailing
   *     separator; {@code null} or empty turns the file audit off
   * @param excludedPrefixes absolute paths whose writes are never audited: the path itself, and the
   *     temporary siblings named after it ({@code report.json123.tmp}, {@code
   *     writer-fence-bootstrap-123.jar}); may be {@code null}
   * @param cwd the absolute working directory that relative paths are resolved against
   */
  public static void configure(String[] auditedPrefixes, String[] excludedPrefixes, String cwd) {
    configure(auditedPrefixes, excludedPrefixes, cwd, false);
  }

  /**
   * As {@link #configure(String[], String[], String)}, choosing whether a path outside every prefix
   * as text is compared again by its real path (links resolved).
   *
   * @param auditedPrefixes absolute, normalized paths without a trailing separator; with {@code
   *     links} give each root's real path too (resolved once, here it is not)
   * @param excludedPrefixes as in the three-argument form; may be {@code null}
   * @param cwd the absolute working directory
   * @param links {@code true} to resolve the written path's links when its text matches no prefix
   */
  public static void configure(
      String[] auditedPrefixes, String[] excludedPrefixes, String cwd, boolean links) {
    resolveLinks = links;
    workingDirectory = cwd;
    excluded = excludedPrefixes == null ? new String[0] : excludedPrefixes.clone();
    prefixes =
        auditedPrefixes == null || auditedPrefixes.length == 0 ? null : auditedPrefixes.clone();
  }

  /**
   * For {@code newByteChannel}, {@code newFileChannel}, {@code newAsynchronousFileChannel}: an open
   * is a write when any option asks to write, append, create, truncate or delete on close.
   *
   * @param operation the provider method
   * @param path the file; a {@link Path} of any file system, or {@code null}
   * @param options the open options; may be {@code null}
   * @return {@code true} when the gate was entered and {@link #exit(boolean)} must end it
   * @throws RuntimeException from the sink, to refuse the open (enforce mode)
   */
  public static boolean enterOpen(String operation, Object path, Set<?> options) {
    if (prefixes == null || options == null || !writes(options)) {
      return false;
    }
    return enterPath(operation, path);
  }

  /**
   * For {@code RandomAccessFile.open(String, int)}: any mode but read-only writes.
   *
   * @param operation the method, reported as given
   * @param name the file name as passed to the JDK (absolute or relative)
   * @param mode the JDK's internal open mode
   * @return {@code true} when the gate was entered
   * @throws RuntimeException from the sink, to refuse the open
   */
  public static boolean enterRandomAccess(String operation, String name, int mode) {
    if (prefixes == null || mode == RANDOM_ACCESS_READ_ONLY) {
      return false;
    }
    return enterPath(operation, name);
  }

  /**
   * For an operation that writes to (or removes, renames, creates) one path: a {@link Path}, a
   * {@link java.io.File} or a {@link String}.
   *
   * @param operation the method
   * @param path the path written; {@code null} is never under a prefix
   * @return {@code true} when the gate was entered
   * @throws RuntimeException from the sink, to refuse the write
   */
  public static boolean enterPath(String operation, Object path) {
    if (prefixes == null || path == null) {
      return false;
    }
    String audited = audited(path.toString());
    if (audited == null || isExistingDirectoryCreation(operation, audited)) {
      return false;
    }
    AuditGate.enter(CLIENT, operation, volumeOf(audited), audited);
    return true;
  }

  /**
   * Creating a directory that already exists changes nothing (the JDK then throws or answers
   * false), and {@code Files.createDirectories} or {@code File.mkdirs} on an existing volume
   * directory is how many writers start: not a write. The check runs with the audit suspended.
   */
  private static boolean isExistingDirectoryCreation(String operation, String absolute) {
    if (!operation.equals("createDirectory")
        && !operation.equals("mkdir")
        && !operation.equals("mkdirs")) {
      return false;
    }
    AuditGate.suspend();
    try {
      return new java.io.File(absolute).isDirectory();
    } finally {
      AuditGate.exit();
    }
  }

  /**
   * For an operation that writes two paths (a move or rename: both change) ; one audited write when
   * either lies under a prefix.
   *
   * @param operation the method
   * @param first the source; may be {@code null}
   * @param second the target; may be {@code null}
   * @return {@code true} when the gate was entered
   * @throws RuntimeException from the sink, to refuse the write
   */
  public static boolean enterPaths(String operation, Object first, Object second) {
    if (prefixes == null) {
      return false;
    }
    String audited = second == null ? null : audited(second.toString());
    if (audited == null && first != null) {
      audited = audited(first.toString());
    }
    if (audited == null) {
      return false;
    }
    AuditGate.enter(CLIENT, operation, volumeOf(audited), audited);
    return true;
  }

  /**
   * Ends what an {@code enter...} call began.
   *
   * @param entered what that call returned
   */
  public static void exit(boolean entered) {
    if (entered) {
      AuditGate.exit();
    }
  }

  /**
   * @param path a path as text
   * @return the absolute path when it lies under an audited prefix and not under an excluded one,
   *     else {@code null}
   */
  static String audited(String path) {
    String[] current = prefixes;
    if (current == null || path.isEmpty()) {
      return null;
    }
    String absolute = path.charAt(0) == '/' ? path : workingDirectory + '/' + path;
    if (absolute.contains("/.") || absolute.contains("//")) {
      // "..", "." and doubled separators would defeat a prefix compare either way.
      absolute = Path.of(absolute).normalize().toString();
    }
    String match = underPrefix(current, absolute);
    if (match != null || !resolveLinks || AuditGate.nested()) {
      return match;
    }
    String real = realPath(absolute);
    return real == null || real.equals(absolute) ? null : underPrefix(current, real);
  }

  private static String underPrefix(String[] current, String absolute) {
    for (String prefix : current) {
      if (absolute.startsWith(prefix)
          && (absolute.length() == prefix.length() || absolute.charAt(prefix.length()) == '/')) {
        return isExcluded(absolute) ? null : absolute;
      }
    }
    return null;
  }

  /**
   * @param absolute an absolute, normalized path
   * @return its real path: the nearest existing ancestor (or itself) with links resolved, and the
   *     part that does not exist yet appended; {@code null} when it cannot be resolved
   */
  static String realPath(String absolute) {
    AuditGate.suspend(); // the look-ups are the agent's own, never judged
    try {
      Path path = Path.of(absolute);
      Path existing = path;
      while (existing != null && !Files.exists(existing)) {
        existing = existing.getParent();
      }
      if (existing == null) {
        return null;
      }
      return existing.toRealPath().resolve(existing.relativize(path)).normalize().toString();
    } catch (IOException | RuntimeException e) {
      return null; // gone meanwhile, or not readable: judged by its text alone
    } finally {
      AuditGate.exit();
    }
  }

  /**
   * @param audited an absolute path that {@link #audited} accepted
   * @return the audited prefix it lies under: the volume its writes belong to, for the report
   */
  static String volumeOf(String audited) {
    String[] current = prefixes;
    String longest = null;
    for (String prefix : current == null ? new String[0] : current) {
      if (audited.startsWith(prefix) && (longest == null || prefix.length() > longest.length())) {
        longest = prefix;
      }
    }
    return longest;
  }

  private static boolean isExcluded(String absolute) {
    for (String prefix : excluded) {
      if (absolute.startsWith(prefix) && isGeneratedSuffix(absolute, prefix.length())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The excluded file itself, or a temporary sibling the JDK named after it ({@code
   * Files.createTempFile}: the prefix, digits, then {@code .tmp} or {@code .jar}). Anything else
   * that merely starts with an excluded path is audited: a report path must not open a hole.
   */
  private static boolean isGeneratedSuffix(String absolute, int from) {
    if (from == absolute.length()) {
      return true;
    }
    int i = from;
    while (i < absolute.length() && Character.isDigit(absolute.charAt(i))) {
      i++;
    }
    String rest = absolute.substring(i);
    return i > from && (rest.equals(".tmp") || rest.equals(".jar"));
  }

  private static boolean writes(Set<?> options) {
    for (Object option : options) {
      if (option == StandardOpenOption.WRITE
          || option == StandardOpenOption.APPEND
          || option == StandardOpenOption.CREATE
          || option == StandardOpenOption.CREATE_NEW
          || option == StandardOpenOption.TRUNCATE_EXISTING
          || option == StandardOpenOption.DELETE_ON_CLOSE) {
        return true;
      }
      if (!(option instanceof StandardOpenOption)
          && option instanceof OpenOption
          && !NOT_WRITING.contains(option.toString())) {
        return true; // default-deny: an option added later (or a vendor's) might write
      }
    }
    return false;
  }
}
