package dev.writerfence.aspectj;

import dev.writerfence.annotation.WriterFenced;

/** Fenced at type level: its public methods are fenced, the others are not. */
@WriterFenced(value = "type:{0}", holder = "type-level")
class TypeFencedWriter {

  public Observation publicWrite(String id) {
    return Observation.inside("type:" + id);
  }

  Observation packagePrivateWrite(String id) {
    return Observation.inside("type:" + id);
  }
}
