package com.acme.volume;

import com.acme.app.EventLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Materializes a volume (a file here) from scratch: a second kind of legacy writer. */
public class Materializer {
  private final Path root;
  private final EventLog events;

  /**
   * @param root the directory volumes live in
   * @param events where entries and exits are recorded
   */
  public Materializer(Path root, EventLog events) {
    this.root = root;
    this.events = events;
  }

  /**
   * @param volume the volume's name
   */
  public void materialize(String volume) {
    events.enter("volume-" + volume);
    try {
      Files.writeString(root.resolve("volume-" + volume), "materialized by " + events.writer());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      events.exit("volume-" + volume);
    }
  }
}
