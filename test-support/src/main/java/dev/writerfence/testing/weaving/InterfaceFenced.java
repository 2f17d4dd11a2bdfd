package dev.writerfence.testing.weaving;

import dev.writerfence.annotation.WriterFenced;

/**
 * An interface whose abstract method carries {@code @WriterFenced}: no weaving mode honours that
 * annotation on the methods that implement it (see {@link WriterFenced}).
 */
public interface InterfaceFenced {
  /**
   * @param fenceName the fence name
   * @param body what runs inside the method
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER)
  void write(String fenceName, Runnable body);
}
