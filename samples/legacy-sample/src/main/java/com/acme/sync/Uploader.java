package com.acme.sync;

import com.acme.app.EventLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * Uploads objects into a bucket (a directory here), the way legacy code does: no lock, no fence,
 * nothing to say that two uploaders must not interleave. The agent fences it by configuration.
 */
public class Uploader {
  private final Path bucket;
  private final EventLog events;

  /**
   * @param bucket the directory objects are written to
   * @param events where entries into and exits from the write are recorded
   */
  public Uploader(Path bucket, EventLog events) {
    this.bucket = bucket;
    this.events = events;
  }

  /**
   * Writes one object in several chunks, so that two unfenced uploads would interleave.
   *
   * @param objectKey the object's name in the bucket
   * @return the fencing token seen inside, or -1 without a fence
   */
  public long upload(String objectKey) {
    long token = events.enter(objectKey);
    try {
      Path object = bucket.resolve(objectKey);
      Files.deleteIfExists(object);
      for (int chunk = 0; chunk < 8; chunk++) {
        Files.writeString(
            object,
            "chunk " + chunk + " of " + objectKey + " by " + events.writer() + "\n",
            StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.APPEND);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      events.exit(objectKey);
    }
    return token;
  }

  /**
   * A sync walk that uploads several objects, each through {@link #upload}: nested writer calls.
   *
   * @param objectKeys the objects
   * @return the fencing tokens seen inside each upload
   */
  public List<Long> uploadAll(List<String> objectKeys) {
    return objectKeys.stream().map(this::upload).toList();
  }

  /**
   * Starts an upload that writes when {@code gate} completes, on the thread that completes it.
   *
   * @param objectKey the object's name
   * @param gate completed when the upload may write
   * @return completes with the key once the object is written
   */
  public CompletableFuture<String> uploadLater(String objectKey, CompletableFuture<Void> gate) {
    return gate.thenApply(
        v -> {
          try {
            Files.writeString(bucket.resolve(objectKey), "written later by " + events.writer());
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return objectKey;
        });
  }

  /**
   * Uploads, then stays inside the write until {@code finish} counts down: keeps the writer busy.
   *
   * @param objectKey the object's name
   * @param inside runs inside the write, after the upload
   * @param finish awaited before the write ends
   * @throws InterruptedException when interrupted while waiting
   */
  public void uploadAndWait(String objectKey, Runnable inside, CountDownLatch finish)
      throws InterruptedException {
    upload(objectKey);
    inside.run();
    finish.await();
  }
}
