package com.example.fenced.woven;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.bootstrap.HeldFenceStack;

/** Woven by AspectJ at load time (its package is the only one the IT's aop file includes). */
public class WovenWriter {
  /** Creates the writer. */
  public WovenWriter() {}

  /**
   * @param fenceName the fence to write under
   * @return how many holds of that name this thread has inside the write
   */
  @WriterFenced(value = "{0}", holder = "woven")
  public long write(String fenceName) {
    return HeldFenceStack.held().stream().filter(e -> e.fenceName().equals(fenceName)).count();
  }
}
