package dev.writerfence.spring.app;

import dev.writerfence.annotation.WriterFenced;

/** Annotated on the interface method only: not honoured, named at start-up. */
public interface Uploads {
  @WriterFenced("{0}")
  long upload(String fence);
}
