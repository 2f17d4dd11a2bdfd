package com.acme.unwoven;

import dev.writerfence.annotation.WriterFenced;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An application whose {@code @WriterFenced} method was never woven (no AspectJ, no Spring proxy,
 * no agent fencing): it writes a file under the audited directory twice, with no fence held. Prints
 * {@code wrote} or {@code refused} per write, then {@code done}.
 *
 * <p>Arguments: the audited directory.
 */
public final class UnwovenApp {
  private UnwovenApp() {}

  /** The annotated writer: unadvised, its writes are unfenced. */
  public static final class Uploader {
    @WriterFenced("corpus")
    public void upload(Path dir, String name) throws IOException {
      Files.writeString(dir.resolve(name), "x");
    }
  }

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    Uploader uploader = new Uploader();
    for (String name : new String[] {"a.json", "b.json"}) {
      try {
        uploader.upload(dir, name);
        System.out.println("wrote " + name);
      } catch (IOException | RuntimeException e) {
        System.out.println("refused " + name + " " + e.getClass().getSimpleName());
      }
    }
    System.out.println("done");
  }
}
