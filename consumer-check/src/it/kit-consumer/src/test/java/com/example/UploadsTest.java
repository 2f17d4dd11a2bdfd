package com.example;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLostException;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.testing.FenceAssert;
import dev.writerfence.testing.TestFence;
import dev.writerfence.testing.spring.TestFenceConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;

/** The bean as the application runs it, advised by the starter, on the test kit's fence. */
@SpringBootTest
@Import(TestFenceConfiguration.class)
class UploadsTest {
  private static final Map<String, byte[]> TWO_FILES =
      Map.of("a.txt", "a".getBytes(UTF_8), "b.txt", "b".getBytes(UTF_8));

  @Autowired Uploads uploads; // the application's bean, advised by the starter
  @Autowired TestFence fence; // the fence it runs on, made busy, lost or unavailable below
  @Autowired FakeStorage storage;

  @AfterEach
  void clear() {
    storage.clear();
  }

  @Test
  void writesUnderTheFence() {
    uploads.put("photos", TWO_FILES);

    assertThat(storage.objects).containsOnlyKeys("photos/a.txt", "photos/b.txt");
  }

  @Test
  void givesUpWhenAnotherWriterHoldsTheBucket() {
    try (TestFence.Rival other = fence.holdBusy("bucket:photos")) {
      assertThatThrownBy(() -> uploads.put("photos", TWO_FILES))
          .isInstanceOf(WriterFenceBusyException.class);
    }
    assertThat(storage.objects).isEmpty();
  }

  @Test
  void stopsWritingOnceTheLeaseIsLost() {
    List<TestFence.Rival> takers = new ArrayList<>();
    // Another writer takes the bucket over while the first file is being written.
    storage.duringNextPut(() -> takers.add(fence.takeOver("bucket:photos")));
    try {
      assertThatThrownBy(() -> uploads.put("photos", TWO_FILES))
          .isInstanceOf(FenceLostException.class);
    } finally {
      takers.forEach(TestFence.Rival::close);
    }
    assertThat(storage.objects).hasSize(1); // the second file was not written
  }

  @Test
  void aReadOnlyDatabaseMakesTheFenceUnavailable() {
    try (TestFence.Outage outage = fence.readOnly()) {
      assertThatThrownBy(() -> uploads.put("photos", TWO_FILES))
          .isInstanceOf(WriterFenceUnavailableException.class);
    }
    assertThat(storage.objects).isEmpty();
  }

  @Test
  void anUnreachableDatabaseMakesTheFenceUnavailable() {
    try (TestFence.Outage outage = fence.unreachable()) {
      assertThatThrownBy(() -> uploads.put("photos", TWO_FILES))
          .isInstanceOf(WriterFenceUnavailableException.class);
    }
    uploads.put("photos", TWO_FILES); // reachable again
    assertThat(storage.objects).hasSize(2);
  }

  /** The storage of these tests: fails a write made outside the bucket's fence. */
  static class FakeStorage implements Storage {
    final Map<String, Long> objects = new ConcurrentHashMap<>(); // bucket/key: fencing token
    private Runnable duringNextPut;

    @Override
    public void put(String bucket, String key, byte[] bytes, long fencingToken) {
      FenceAssert.assertFenced("bucket:" + bucket);
      if (duringNextPut != null) {
        duringNextPut.run();
        duringNextPut = null;
      }
      objects.put(bucket + "/" + key, fencingToken);
    }

    void duringNextPut(Runnable action) {
      duringNextPut = action;
    }

    void clear() {
      objects.clear();
      duringNextPut = null;
    }
  }

  @TestConfiguration
  static class Fakes {
    @Bean
    @Primary
    FakeStorage fakeStorage() {
      return new FakeStorage();
    }
  }
}
