package com.example;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import java.util.Map;
import org.springframework.stereotype.Service;

/** The README's Spring Boot quick start: one writer per bucket, across every instance. */
@Service
public class Uploads {
  private final Storage storage;

  public Uploads(Storage storage) {
    this.storage = storage;
  }

  @WriterFenced(value = "bucket:{0}", holder = "upload")
  public void put(String bucket, Map<String, byte[]> objects) {
    FenceLease lease = WriterFence.current("bucket:" + bucket).orElseThrow();
    objects.forEach(
        (key, bytes) -> {
          lease.checkValid(); // FenceLostException: stop, do not write
          storage.put(bucket, key, bytes, lease.fencingToken());
        });
  }
}
