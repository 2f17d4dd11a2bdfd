package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;

/**
 * Makes the application's fence the process-wide one ({@link ProcessFence#set}) that the AspectJ
 * aspect uses, so that code woven at load time (the answer to self-invocation) shares its exclusion
 * domain and re-enters a hold taken by the Spring advice instead of acquiring again.
 */
final class WriterFenceProcessDefault {
  private static WriterFence installed;

  private WriterFenceProcessDefault() {}

  static synchronized void install(WriterFence fence) {
    ProcessFence.set(fence);
    installed = fence;
  }

  /** Clears the process default if it is still the one this starter installed. */
  static synchronized void clearIfSame(WriterFence fence) {
    if (installed == fence) {
      ProcessFence.set(null);
      installed = null;
    }
  }
}
