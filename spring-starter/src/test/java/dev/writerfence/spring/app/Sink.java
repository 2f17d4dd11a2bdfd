package dev.writerfence.spring.app;

import dev.writerfence.annotation.WriterFenced;

/** Annotated on the interface type: not honoured; its implementations run unfenced. */
@WriterFenced("{0}")
public interface Sink {
  long sink(String fence);
}
