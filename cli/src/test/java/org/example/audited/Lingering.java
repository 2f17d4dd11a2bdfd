package org.example.audited;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM that writes nothing and stays until a file exists, so that a script can make it exit after
 * its other JVMs: the last to exit, whose report once overwrote theirs.
 *
 * <p>Arguments: anything, then last the file to wait for; it gives up after a minute.
 */
public final class Lingering {
  private Lingering() {}

  public static void main(String[] args) throws InterruptedException {
    Path go = Path.of(args[args.length - 1]);
    for (int i = 0; i < 1200 && !Files.exists(go); i++) {
      Thread.sleep(50);
    }
  }
}
