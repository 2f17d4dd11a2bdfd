package org.example.wrapper;

import java.util.function.Supplier;

/**
 * Stands for a library that wraps a storage client: the application calls it, it calls the client.
 */
public final class BucketTemplate {
  private BucketTemplate() {}

  /**
   * @param client what the storage client would do, run from inside this wrapper
   * @return what it returned
   */
  public static <T> T store(Supplier<T> client) {
    return client.get();
  }
}
