package dev.writerfence.spring.app;

import dev.writerfence.annotation.WriterFenced;

/** Annotated on the interface method only. */
public interface Uploads {
  @WriterFenced("{0}")
  long upload(String fence);
}
