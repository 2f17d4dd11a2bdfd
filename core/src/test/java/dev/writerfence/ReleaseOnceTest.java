package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.RecordingLeaseStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * One lease is released once: a second release (a container closing the fence while the JVM's
 * shutdown hook releases the same lease, say) sends nothing, warns nothing and answers false.
 */
class ReleaseOnceTest extends FenceTestSupport {

  @Test
  void concurrentReleasesOfOneLeaseSendOneStatementAndOneAnswersTrue() throws Exception {
    RecordingLeaseStore store = recordingStore();
    List<Boolean> freedEvents = new ArrayList<>();
    WriterFence fence =
        WriterFence.builder(store)
            .listener(
                new FenceListener() {
                  @Override
                  public synchronized void released(FenceLease lease, boolean freed) {
                    freedEvents.add(freed);
                  }
                })
            .build();
    FenceLease lease =
        fence
            .tryAcquire(
                FenceRequest.builder(name).holderLabel("once").ttl(Duration.ofSeconds(30)).build())
            .orElseThrow();

    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Boolean>> answers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        answers.add(
            pool.submit(
                () -> {
                  start.await();
                  return fence.release(lease);
                }));
      }
      start.countDown();
      int trues = 0;
      for (Future<Boolean> answer : answers) {
        trues += answer.get() ? 1 : 0;
      }
      assertThat(trues).as("exactly one release freed the row").isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.releaseTokens()).as("one release statement").hasSize(1);
    synchronized (freedEvents) {
      assertThat(freedEvents).as("one listener call").containsExactly(true);
    }
    assertThat(fence.status(name).orElseThrow().state()).isEqualTo("free");
  }
}
