package dev.writerfence.buildchecks;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** The repository being built: its root folder and the text of the files it holds. */
final class Repository {
  private final Path root;

  private Repository(Path root) {
    this.root = root;
  }

  /**
   * @return the repository named by the system property {@code writer-fence.root}, which the
   *     build-checks POM sets to the folder of the parent POM
   * @throws IllegalStateException when the property is not set or names no folder with a pom.xml
   */
  static Repository fromBuild() {
    String property = System.getProperty("writer-fence.root");
    if (property == null) {
      throw new IllegalStateException(
          "system property writer-fence.root is not set: run this test through Maven, whose"
              + " build-checks POM sets it to the repository's root");
    }
    Path root = Path.of(property).toAbsolutePath().normalize();
    if (!Files.isRegularFile(root.resolve("pom.xml"))) {
      throw new IllegalStateException("writer-fence.root=" + root + " holds no pom.xml");
    }
    return new Repository(root);
  }

  Path root() {
    return root;
  }

  /**
   * The files git tracks, or, where this is no git work tree (a source archive), every file outside
   * {@code .git} and the build's {@code target} folders.
   *
   * @return paths relative to the root, in git's order or the walk's
   */
  List<Path> files() throws IOException, InterruptedException {
    return tracked().orElseGet(this::walk);
  }

  /**
   * @return the file's text, or empty for a binary file (one with a NUL byte)
   */
  Optional<String> text(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(root.resolve(file));
    for (byte b : bytes) {
      if (b == 0) {
        return Optional.empty();
      }
    }
    return Optional.of(new String(bytes, UTF_8));
  }

  private Optional<List<Path>> tracked() throws IOException, InterruptedException {
    Process git;
    try {
      git =
          new ProcessBuilder("git", "-C", root.toString(), "ls-files", "-z")
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
    } catch (IOException noGit) {
      return Optional.empty();
    }
    String listing = new String(git.getInputStream().readAllBytes(), UTF_8);
    if (git.waitFor() != 0) {
      return Optional.empty();
    }
    List<Path> files = new ArrayList<>();
    for (String name : listing.split("\0")) {
      // A file deleted in the work tree but not yet in the index is listed, and has no text.
      if (!name.isEmpty() && Files.isRegularFile(root.resolve(name))) {
        files.add(Path.of(name));
      }
    }
    return Optional.of(files);
  }

  private List<Path> walk() {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(Files::isRegularFile)
          .map(root::relativize)
          .filter(p -> !p.startsWith(".git"))
          .filter(p -> !p.toString().matches("(.*/)?target/.*"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
