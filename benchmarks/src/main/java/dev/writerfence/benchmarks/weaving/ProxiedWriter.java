package dev.writerfence.benchmarks.weaving;

import dev.writerfence.annotation.WriterFenced;

/**
 * The same writer for Spring AOP (a CGLIB proxy, as Spring Boot makes by default) and, unfenced, as
 * the plain-call baseline. Not woven by ajc: only {@code weaving.ctw} is.
 */
public class ProxiedWriter {
  /**
   * @param value any number
   * @return {@code value + 1}
   */
  @WriterFenced(value = "weaving", holder = "bench")
  public int write(int value) {
    return value + 1;
  }
}
