package com.example;

import dev.writerfence.testing.FenceAssert;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A bucket in memory that fails the test when it is written to outside the fence. */
final class FakeBucket implements Bucket {
  final Map<String, byte[]> objects = new ConcurrentHashMap<>();

  @Override
  public void put(String key, byte[] bytes) {
    FenceAssert.assertFenced("corpus");
    objects.put(key, bytes);
  }
}
