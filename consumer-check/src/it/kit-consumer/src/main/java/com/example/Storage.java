package com.example;

/** Where the uploads go: an object store's client in production, a fake in tests. */
public interface Storage {
  void put(String bucket, String key, byte[] bytes, long fencingToken);
}
