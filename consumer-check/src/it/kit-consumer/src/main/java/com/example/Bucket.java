package com.example;

/** The storage the application writes to: an object store in production, a fake in tests. */
public interface Bucket {
  void put(String key, byte[] bytes);
}
