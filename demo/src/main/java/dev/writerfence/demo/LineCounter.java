package dev.writerfence.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Counts the lines a writer has appended to its record so far. It reads only what is new since the
 * last count, so counting every second costs little however long the record grows.
 */
final class LineCounter {
  private final Path file;
  private long offset;
  private long lines;

  /**
   * @param file a file that is only ever appended to; it need not exist yet
   */
  LineCounter(Path file) {
    this.file = file;
  }

  /**
   * @return the lines in the file so far
   */
  long count() {
    try (FileChannel channel = FileChannel.open(file)) {
      ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
      int n;
      while ((n = channel.read(buffer, offset)) > 0) {
        for (int i = 0; i < n; i++) {
          if (buffer.get(i) == '\n') {
            lines++;
          }
        }
        offset += n;
        buffer.clear();
      }
    } catch (IOException e) {
      // not created yet: nothing counted
    }
    return lines;
  }
}
