package com.acme.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Records each entry into and exit from a write as one line appended to a file that several
 * processes share: {@code enter|exit WRITER TOKEN KEY FENCE HOLDER}. Each line is one append
 * ({@code O_APPEND}), so the file's order is the order in which the events happened, across
 * processes, and can be checked afterwards for interleaved writes.
 */
public final class EventLog {
  private final Path file;
  private final String process;

  /**
   * @param file the shared event file
   */
  public EventLog(Path file) {
    this.file = file;
    this.process = "pid" + ProcessHandle.current().pid();
  }

  /**
   * @return who writes: process and thread
   */
  public String writer() {
    return process + "/" + Thread.currentThread().getName();
  }

  /**
   * @param key what is being written
   * @return the fencing token held now, or -1 when no fence is held
   */
  public long enter(String key) {
    FenceProbe.Held held = FenceProbe.innermost();
    append("enter", key, held);
    return held.fencingToken();
  }

  /**
   * @param key what was written
   */
  public void exit(String key) {
    append("exit", key, FenceProbe.innermost());
  }

  private void append(String event, String key, FenceProbe.Held held) {
    String line =
        String.join(
                " ",
                event,
                writer(),
                Long.toString(held.fencingToken()),
                key,
                held.fenceName(),
                held.holderLabel())
            + "\n";
    try {
      Files.write(
          file,
          line.getBytes(StandardCharsets.UTF_8),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
