package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An in-process JDK Flight Recorder recording around fenced calls on the real database holds the
 * fence's events with their fields: a won call, a busy one behind it, a hold from grant to release,
 * and a lease taken over behind its holder's back, lost.
 */
class FenceEventsTest extends FenceTestSupport {
  @TempDir Path dir;

  @Test
  void aRecordingHoldsAcquireBusyHoldAndLostEventsWithTheirFields() throws Exception {
    CountDownLatch lost = new CountDownLatch(1);
    FenceListener hearsLoss =
        new FenceListener() {
          @Override
          public void lost(FenceLease lease, String reason) {
            lost.countDown();
          }
        };
    Path file = dir.resolve("fence.jfr");
    long token;
    try (WriterFence fence =
            fence(DB.dataSource())
                .renewInterval(Duration.ofMillis(200))
                .listener(hearsLoss)
                .build();
        WriterFence other = fence();
        Recording recording = new Recording()) {
      for (String event : FenceEvents.NAMES) {
        recording.enable(event).withoutThreshold();
      }
      recording.start();

      token =
          fence.callWithLease(
              request("events"),
              lease -> {
                // Held here: another writer is refused busy (on another thread, which would
                // otherwise join this hold).
                CompletableFuture<Void> busy =
                    CompletableFuture.runAsync(() -> other.run(request("refused"), () -> {}));
                assertThatThrownBy(busy::join).hasCauseInstanceOf(WriterFenceBusyException.class);
                return lease.fencingToken();
              });
      fence.run(
          request("taken-over"),
          () -> {
            takeOver();
            assertThat(lost.await(10, TimeUnit.SECONDS)).as("the loss was heard").isTrue();
          });

      recording.stop();
      recording.dump(file);
    }

    List<RecordedEvent> events =
        RecordingFile.readAllEvents(file).stream()
            .filter(e -> name.equals(e.getString("fenceName")))
            .toList();
    assertThat(events)
        .as("the fence's events")
        .extracting(e -> e.getEventType().getName())
        .contains(
            FenceEvents.ACQUIRE_NAME,
            FenceEvents.BUSY_NAME,
            FenceEvents.HOLD_NAME,
            FenceEvents.LOST_NAME);

    RecordedEvent acquired = only(events, FenceEvents.ACQUIRE_NAME, "events@");
    assertThat(acquired.getLong("fencingToken")).isEqualTo(token).isPositive();
    assertThat(acquired.getInt("attempts")).isEqualTo(1);
    assertThat(acquired.getDuration("wait")).isPositive();
    assertThat(acquired.getInt("place")).isZero();

    RecordedEvent busy = only(events, FenceEvents.BUSY_NAME, "refused@");
    assertThat(busy.getString("heldBy")).isEqualTo("events@" + HolderLabel.instance());
    assertThat(busy.getInt("attempts")).isBetween(1, QUICK_RETRY.maxAttempts());
    assertThat(busy.getDuration("wait")).isPositive();

    RecordedEvent held = only(events, FenceEvents.HOLD_NAME, "events@");
    assertThat(held.getLong("fencingToken")).isEqualTo(token);
    assertThat(held.getString("end")).isEqualTo("released");
    assertThat(held.getDuration()).as("from grant to release").isPositive();

    RecordedEvent lostEvent = only(events, FenceEvents.LOST_NAME, "taken-over@");
    assertThat(lostEvent.getLong("fencingToken")).isGreaterThan(token);
    assertThat(lostEvent.getString("reason")).contains("taken over");
    assertThat(only(events, FenceEvents.HOLD_NAME, "taken-over@").getString("end"))
        .isEqualTo("lost");
  }

  @Test
  void aRecordingThatTurnsTheEventsOffGetsNone() throws Exception {
    Path file = dir.resolve("other.jfr");
    try (WriterFence fence = fence();
        Recording recording = new Recording()) {
      // Enabled in any recording unless its settings say otherwise, as JFR's own events are.
      for (String event : FenceEvents.NAMES) {
        recording.disable(event);
      }
      recording.enable("jdk.ThreadSleep");
      recording.start();
      fence.run(request("unrecorded"), () -> {});
      recording.stop();
      recording.dump(file);
    }
    assertThat(RecordingFile.readAllEvents(file))
        .noneMatch(e -> e.getEventType().getName().startsWith("writerfence."));
    assertThat(Files.size(file)).isPositive();
  }

  /** The one event of a type whose holder label starts with {@code label}. */
  private static RecordedEvent only(List<RecordedEvent> events, String type, String label) {
    List<RecordedEvent> found =
        events.stream()
            .filter(e -> e.getEventType().getName().equals(type))
            .filter(e -> e.getString("holder").startsWith(label))
            .toList();
    assertThat(found).as("%s events of %s", type, label).hasSize(1);
    return found.get(0);
  }
}
