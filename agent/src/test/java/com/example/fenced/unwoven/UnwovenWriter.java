package com.example.fenced.unwoven;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.bootstrap.HeldFenceStack;

/** Annotated at type level but outside the woven package: only the agent can fence it. */
@WriterFenced(value = "{0}", holder = "unwoven")
public class UnwovenWriter {
  /** Creates the writer. */
  public UnwovenWriter() {}

  /**
   * @param fenceName the fence to write under
   * @return how many holds of that name this thread has inside the write
   */
  public long write(String fenceName) {
    return HeldFenceStack.held().stream().filter(e -> e.fenceName().equals(fenceName)).count();
  }
}
