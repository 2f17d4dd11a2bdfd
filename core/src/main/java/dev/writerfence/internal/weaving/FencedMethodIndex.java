package dev.writerfence.internal.weaving;

import dev.writerfence.annotation.processing.FencedMethodIndexer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The {@code @WriterFenced} methods that {@link FencedMethodIndexer} listed at compile time, read
 * from every {@value FencedMethodIndexer#INDEX} a class loader sees.
 */
final class FencedMethodIndex {
  private FencedMethodIndex() {}

  /**
   * One listed method.
   *
   * @param className the binary name of its class
   * @param methodName its name
   * @param line the index line, {@code class#name(parameter types)}, as the check names it
   */
  record Entry(String className, String methodName, String line) {}

  /**
   * @param loader the class loader whose resources are read
   * @return every listed method, in index order; empty when no index is on the class path
   * @throws IllegalStateException when an index line is not {@code class#name(...)}
   * @throws UncheckedIOException when an index cannot be read
   */
  static List<Entry> read(ClassLoader loader) {
    List<Entry> entries = new ArrayList<>();
    try {
      for (URL url : Collections.list(loader.getResources(FencedMethodIndexer.INDEX))) {
        try (InputStream in = url.openStream()) {
          for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
              entries.add(parse(line.strip(), url));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writer-fence: cannot read " + FencedMethodIndexer.INDEX, e);
    }
    return entries;
  }

  private static Entry parse(String line, URL source) {
    int hash = line.indexOf('#');
    int paren = line.indexOf('(', hash + 1);
    if (hash < 1 || paren <= hash + 1 || !line.endsWith(")")) {
      throw new IllegalStateException(
          "writer-fence: line '"
              + line
              + "' of "
              + source
              + " is not class#method(parameter types); rebuild it with FencedMethodIndexer");
    }
    return new Entry(line.substring(0, hash), line.substring(hash + 1, paren), line);
  }
}
