package dev.writerfence.annotation.processing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The index javac writes with the processor named: what it lists and what it leaves out. */
class FencedMethodIndexerTest {
  @TempDir Path dir;

  @Test
  void listsAnnotatedMethodsAndThePublicMethodsOfAnnotatedTypesSorted() throws IOException {
    source(
        "org/example/Upload.java",
        """
        package org.example;
        import dev.writerfence.annotation.WriterFenced;
        public class Upload {
          @WriterFenced("corpus:{0}") public void put(String bucket, byte[] body, int n) {}
          @WriterFenced("corpus") void packagePrivate(java.util.List<String> keys) {}
          public void notFenced() {}
          public static class Inner {
            @WriterFenced("corpus") public <T extends Number> void nested(T value) {}
          }
        }
        """);
    source(
        "org/example/Sync.java",
        """
        package org.example;
        import dev.writerfence.annotation.WriterFenced;
        @WriterFenced("sync")
        public class Sync {
          public void walk() {}
          public static void once() {}
          private void helper() {}
          void packagePrivate() {}
        }
        """);

    assertThat(compile())
        .containsExactly(
            "org.example.Sync#once()",
            "org.example.Sync#walk()",
            "org.example.Upload#packagePrivate(java.util.List)",
            "org.example.Upload#put(java.lang.String,byte[],int)",
            "org.example.Upload$Inner#nested(java.lang.Number)");
  }

  @Test
  void writesNoIndexWhenNothingIsAnnotated() throws IOException {
    source("org/example/Plain.java", "package org.example; public class Plain { void m() {} }");

    compile();

    assertThat(dir.resolve("out").resolve(FencedMethodIndexer.INDEX)).doesNotExist();
  }

  private void source(String path, String text) throws IOException {
    Path file = dir.resolve("src").resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  private List<String> compile() throws IOException {
    Path out = Files.createDirectories(dir.resolve("out"));
    List<String> files;
    try (var walk = Files.walk(dir.resolve("src"))) {
      files = walk.filter(Files::isRegularFile).map(Path::toString).toList();
    }
    String[] args =
        java.util.stream.Stream.concat(
                java.util.stream.Stream.of(
                    "-d",
                    out.toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    "-processor",
                    FencedMethodIndexer.class.getName()),
                files.stream())
            .toArray(String[]::new);
    assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null, args)).isZero();
    Path index = out.resolve(FencedMethodIndexer.INDEX);
    return Files.exists(index) ? Files.readAllLines(index, StandardCharsets.UTF_8) : List.of();
  }
}
