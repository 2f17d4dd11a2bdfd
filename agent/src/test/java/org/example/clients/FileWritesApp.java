package org.example.clients;

import static org.example.clients.Writes.attempt;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * File writes for the audit tests, one JDK write path family per method (and so per call site)
 * under the audited directory, one write outside it and one inside a fence, then reads. Arguments:
 * JDBC URL, fence name, the audited directory, a directory outside it.
 */
public final class FileWritesApp {
  private final Path in;

  private FileWritesApp(Path in) {
    this.in = in;
  }

  public static void main(String[] args) throws Exception {
    Path in = Path.of(args[2]);
    Path out = Path.of(args[3]);
    FileWritesApp app = new FileWritesApp(in);
    Files.writeString(out.resolve("source"), "outside the prefix"); // read by copy, never listed
    attempt("outside", () -> Files.writeString(out.resolve("outside"), "x"));
    Writes.fenced(
        args[0],
        args[1],
        () -> attempt("fenced", () -> Files.writeString(in.resolve("fenced"), "x")));
    attempt("files-write", app::filesWrite);
    attempt("byte-channel", app::byteChannel);
    attempt("file-channel", app::fileChannel);
    attempt("async-channel", app::asyncChannel);
    attempt("create-directory", app::createDirectory);
    attempt("create-file", app::createFile);
    attempt("copy", () -> app.copy(out.resolve("source")));
    attempt("move", app::move);
    attempt("delete", app::delete);
    attempt("set-attribute", app::setAttribute);
    attempt("set-times", app::setTimes);
    attempt("set-permissions", app::setPermissions);
    attempt("file-output-stream", app::fileOutputStream);
    attempt("random-access-rw", app::randomAccess);
    attempt("io-delete", app::ioDelete);
    attempt("io-rename", app::ioRename);
    attempt("io-mkdir", app::ioMkdir);
    attempt("io-create", app::ioCreate);
    attempt("io-set-last-modified", app::ioSetLastModified);
    attempt("reads", app::reads);
    Writes.done();
  }

  private void filesWrite() throws Exception {
    Files.writeString(in.resolve("files-write"), "x");
  }

  private void byteChannel() throws Exception {
    Files.newByteChannel(
            in.resolve("byte-channel"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)
        .close();
  }

  private void fileChannel() throws Exception {
    FileChannel.open(
            in.resolve("file-channel"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)
        .close();
  }

  private void asyncChannel() throws Exception {
    try (AsynchronousFileChannel c =
        AsynchronousFileChannel.open(
            in.resolve("async-channel"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(new byte[] {1}), 0).get();
    }
  }

  private void createDirectory() throws Exception {
    Files.createDirectory(in.resolve("create-directory"));
  }

  private void createFile() throws Exception {
    Files.createFile(in.resolve("create-file"));
  }

  private void copy(Path source) throws Exception {
    Files.copy(source, in.resolve("copy"));
  }

  private void move() throws Exception {
    Files.move(in.resolve("copy"), in.resolve("move"));
  }

  private void delete() throws Exception {
    Files.delete(in.resolve("move"));
  }

  private void setAttribute() throws Exception {
    Files.setAttribute(in.resolve("files-write"), "basic:lastModifiedTime", FileTime.fromMillis(0));
  }

  private void setTimes() throws Exception {
    Files.setLastModifiedTime(in.resolve("file-channel"), FileTime.fromMillis(0));
  }

  private void setPermissions() throws Exception {
    Files.setPosixFilePermissions(
        in.resolve("async-channel"), PosixFilePermissions.fromString("rw-------"));
  }

  private void fileOutputStream() throws Exception {
    new FileOutputStream(in.resolve("file-output-stream").toFile()).close();
  }

  private void randomAccess() throws Exception {
    new RandomAccessFile(in.resolve("random-access-rw").toFile(), "rw").close();
  }

  private void ioDelete() {
    check(in.resolve("create-file").toFile().delete());
  }

  private void ioRename() {
    check(in.resolve("byte-channel").toFile().renameTo(in.resolve("io-rename").toFile()));
  }

  private void ioMkdir() {
    check(in.resolve("io-mkdir").toFile().mkdir());
  }

  private void ioCreate() throws Exception {
    check(new File(in.toFile(), "io-create").createNewFile());
  }

  private void ioSetLastModified() {
    check(in.resolve("file-channel").toFile().setLastModified(0));
  }

  /** Reads, through every family too: never listed. */
  private void reads() throws Exception {
    Files.readString(in.resolve("files-write"));
    Files.newByteChannel(in.resolve("files-write")).close();
    FileChannel.open(in.resolve("files-write"), StandardOpenOption.READ).close();
    new FileInputStream(in.resolve("files-write").toFile()).close();
    new RandomAccessFile(in.resolve("files-write").toFile(), "r").close();
    try (var list = Files.list(in)) {
      list.count();
    }
    check(Files.exists(in.resolve("files-write")) && in.resolve("io-mkdir").toFile().isDirectory());
    Files.getLastModifiedTime(in.resolve("files-write"));
    check(
        Files.isDirectory(in.resolve("io-mkdir"))
            && Files.isRegularFile(in.resolve("files-write")));
    check(!Files.isSymbolicLink(in.resolve("files-write")) && Files.isReadable(in));
    check(Files.isWritable(in) && !Files.isHidden(in.resolve("files-write")));
    Files.readAttributes(in.resolve("files-write"), "posix:*");
    Files.size(in.resolve("files-write"));
    check(Files.isSameFile(in, in) && Files.notExists(in.resolve("absent")));
    Files.probeContentType(in.resolve("files-write"));
    Files.getFileStore(in);
  }

  private static void check(boolean done) {
    if (!done) {
      throw new IllegalStateException("the file operation returned false");
    }
  }
}
