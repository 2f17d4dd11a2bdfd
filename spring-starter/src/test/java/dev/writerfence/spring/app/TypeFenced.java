package dev.writerfence.spring.app;

import dev.writerfence.annotation.WriterFenced;

/** Annotated on the class: its public methods are fenced. */
@WriterFenced("{0}")
public class TypeFenced {
  public long put(String fence) {
    return Writers.token(fence);
  }
}
