package dev.writerfence.buildchecks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds Markdown links to files of the repository that do not exist: {@code [text](docs/x.md)} or
 * {@code [text](../core/README.md#part)}, resolved against the linking file's folder. Links with a
 * scheme ({@code https:}, {@code mailto:}) and links to an anchor of the same page are not files.
 */
final class LocalLinks {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  private LocalLinks() {}

  /**
   * @param file the Markdown file, relative to the repository's root
   * @param text its text
   * @param exists whether a path relative to the root is a file or a folder of the repository
   * @return one line per broken link: {@code file:line: target}; empty when none
   */
  static List<String> broken(Path file, String text, Predicate<Path> exists) {
    List<String> found = new ArrayList<>();
    Path folder = file.getParent() == null ? Path.of("") : file.getParent();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher m = LINK.matcher(lines[i]);
      while (m.find()) {
        String target = m.group(1);
        int hash = target.indexOf('#');
        String path = hash >= 0 ? target.substring(0, hash) : target;
        if (path.isEmpty() || SCHEME.matcher(path).find()) {
          continue;
        }
        Path resolved = folder.resolve(path).normalize();
        if (resolved.startsWith("..") || !exists.test(resolved)) {
          found.add(file + ":" + (i + 1) + ": " + target);
        }
      }
    }
    return found;
  }

  /** For {@link #broken}: the tracked files and every folder above one. */
  static Predicate<Path> in(List<Path> files) {
    Set<Path> known = new HashSet<>();
    for (Path f : files) {
      for (Path p = f; p != null; p = p.getParent()) {
        known.add(p);
      }
    }
    return known::contains;
  }
}
