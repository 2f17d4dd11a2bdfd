package dev.writerfence.spring.app;

import dev.writerfence.annotation.WriterFenced;

/** Annotated on the interface type: the methods it declares are fenced in every implementation. */
@WriterFenced("{0}")
public interface Sink {
  long sink(String fence);
}
