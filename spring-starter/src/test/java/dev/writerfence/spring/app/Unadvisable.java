package dev.writerfence.spring.app;

import dev.writerfence.annotation.WriterFenced;

/**
 * @WriterFenced methods no proxy can advise: the start-up check names them.
 */
public class Unadvisable {
  @WriterFenced("{0}")
  public long viaPrivate(String fence) {
    return hidden(fence);
  }

  @WriterFenced("{0}")
  private long hidden(String fence) {
    return Writers.token(fence);
  }

  @WriterFenced("{0}")
  public final long sealed(String fence) {
    return Writers.token(fence);
  }

  @WriterFenced("{0}")
  public static long shared(String fence) {
    return Writers.token(fence);
  }
}
