package org.example.clients;

import static org.example.clients.Writes.attempt;

import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes into the audited directory through symbolic links that lie outside it, for the enforce
 * tests: a new file through a directory link, an existing file through a file link (by {@code
 * Files} and by {@code FileOutputStream}), and one write inside a fence through the directory link.
 * Arguments: JDBC URL, fence name, the directory link, the file link.
 */
public final class LinkWritesApp {
  private LinkWritesApp() {}

  public static void main(String[] args) throws Exception {
    Path dirLink = Path.of(args[2]);
    Path fileLink = Path.of(args[3]);
    Writes.fenced(
        args[0],
        args[1],
        () -> attempt("fenced", () -> Files.writeString(dirLink.resolve("fenced"), "x")));
    attempt("dir-link", () -> Files.writeString(dirLink.resolve("dir-link"), "x"));
    attempt(
        "dir-link-stream",
        () -> new FileOutputStream(dirLink.resolve("dir-link-stream").toFile()).close());
    attempt("file-link", () -> Files.writeString(fileLink, "changed"));
    attempt("file-link-stream", () -> new FileOutputStream(fileLink.toFile()).close());
    Writes.done();
  }
}
