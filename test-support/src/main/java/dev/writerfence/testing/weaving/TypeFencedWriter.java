package dev.writerfence.testing.weaving;

import dev.writerfence.annotation.WriterFenced;

/** A writer fenced by the annotation on its type, which covers its public methods only. */
@WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER)
public class TypeFencedWriter {
  /** Creates the writer; a container may proxy it. */
  public TypeFencedWriter() {}

  /**
   * A public method: fenced by the type's annotation.
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   */
  public void write(String fenceName, Runnable body) {
    body.run();
  }

  /**
   * A method that is not public: the type's annotation does not cover it.
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   */
  void writeInPackage(String fenceName, Runnable body) {
    body.run();
  }
}
