package org.example.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A library's task, in a package the hand-over test marks as a library's ({@code
 * audit.library-packages}): it writes one file, so a stack running it on a pool's thread holds no
 * application frame.
 */
public final class QueueWriter implements Runnable {
  private final Path file;

  public QueueWriter(Path file) {
    this.file = file;
  }

  @Override
  public void run() {
    try {
      Files.writeString(file, "x");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
