package dev.writerfence.buildchecks;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles the Java blocks of a Markdown text that are marked complete ({@code ```java complete}):
 * a whole compilation unit, imports included, that a reader can copy into a file and build against
 * the published modules. Blocks without the mark are excerpts ({@code ...} where the reader's own
 * code goes) and are not compiled. A page's complete blocks compile in order, each with the classes
 * of the page's earlier complete blocks on its class path, so a page can show an application class
 * and then its test.
 */
final class JavaSnippets {
  /** The word after {@code ```java} that marks a block as a whole compilation unit. */
  static final String COMPLETE = "complete";

  private static final Pattern TYPE =
      Pattern.compile(
          "^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)",
          Pattern.MULTILINE);

  private JavaSnippets() {}

  /**
   * @param text a Markdown text
   * @return its Java blocks marked complete, in order
   */
  static List<CodeBlocks.Block> complete(String text) {
    return CodeBlocks.in(text).stream()
        .filter(b -> b.language().equals("java") && b.words().contains(COMPLETE))
        .toList();
  }

  /**
   * Compiles each block marked complete, in order, against a class path and the classes of the
   * file's earlier complete blocks.
   *
   * @param file the Markdown file, as the report names it
   * @param text its text
   * @param classPath the class path to compile against, in the platform's form
   * @param work an empty folder for sources and classes
   * @return one line per compiler error: {@code file:line: message}, the line the Markdown file's;
   *     empty when every block compiles
   */
  static List<String> errors(String file, String text, String classPath, Path work) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("no Java compiler in this JVM: run the build on a JDK");
    }
    List<String> found = new ArrayList<>();
    StringBuilder path = new StringBuilder(classPath);
    int n = 0;
    for (CodeBlocks.Block block : complete(text)) {
      Path dir = work.resolve("snippet-" + n++);
      try {
        Files.createDirectories(dir.resolve("classes"));
        Matcher type = TYPE.matcher(block.code());
        Path source = dir.resolve((type.find() ? type.group(1) : "Snippet") + ".java");
        Files.writeString(source, block.code(), UTF_8);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files =
            javac.getStandardFileManager(diagnostics, Locale.ROOT, UTF_8)) {
          List<String> options =
              List.of(
                  "--release",
                  "17",
                  "-proc:none",
                  "-classpath",
                  path.toString(),
                  "-d",
                  dir.resolve("classes").toString());
          boolean compiled =
              javac
                  .getTask(
                      new StringWriter(),
                      files,
                      diagnostics,
                      options,
                      null,
                      files.getJavaFileObjects(source))
                  .call();
          for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
              long line = block.line() + Math.max(0, d.getLineNumber() - 1);
              found.add(file + ":" + line + ": " + d.getMessage(Locale.ROOT));
            }
          }
          if (!compiled && found.isEmpty()) {
            found.add(file + ":" + block.line() + ": did not compile");
          }
        }
        path.append(File.pathSeparator).append(dir.resolve("classes"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }
}
