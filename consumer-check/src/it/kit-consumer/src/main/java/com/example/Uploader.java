package com.example;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import java.nio.charset.StandardCharsets;

/** Production code: writes a file to the bucket under the fence named "corpus". */
public final class Uploader {
  private final WriterFence fence;
  private final Bucket bucket;

  public Uploader(WriterFence fence, Bucket bucket) {
    this.fence = fence;
    this.bucket = bucket;
  }

  public void upload(String key, String text) {
    fence.run(
        FenceRequest.of("corpus"),
        () -> bucket.put(key, text.getBytes(StandardCharsets.UTF_8)));
  }
}
