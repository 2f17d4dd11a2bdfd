package dev.writerfence.aspectj;

import static dev.writerfence.aspectj.TestFence.EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.testing.OtherWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The aspect woven at compile time (ajc, this module's test-compile) into the test fixtures. */
class CompileTimeWeavingTest extends CompileTimeWovenTest {
  @BeforeEach
  void typeFencedFixtureIsWoven() {
    TestFence.assertWovenAtCompileTime(TypeFencedWriter.class);
  }

  @Test
  void C12_oneAcquireAndOneReleasePerCall() {
    String bucket = TestFence.uniqueId("c12");
    String name = "corpus:" + bucket;

    for (int call = 1; call <= 3; call++) {
      Observation seen = writer.write(bucket);

      assertThat(seen.lease()).as("the body runs holding the lease").isPresent();
      assertThat(seen.lease().get().holderLabel())
          .isEqualTo("write-back@" + HolderLabel.instance());
      assertThat(seen.adviceFrames()).as("advice executions on the stack").isEqualTo(1);
      assertThat(EVENTS.acquires(name)).as("acquires after call %d", call).isEqualTo(call);
      assertThat(EVENTS.releases(name)).as("releases after call %d", call).isEqualTo(call);
      // Server side: the fencing token's counter counts the acquisitions, and the row is free.
      TestFence.LeaseRow row = TestFence.leaseRow(name).orElseThrow();
      assertThat(FencingTokens.counter(row.fencingToken())).isEqualTo(call);
      assertThat(row.held()).isFalse();
      assertThat(seen.lease().get().fencingToken()).isEqualTo(row.fencingToken());
    }
    assertThat(writer.bodyRuns).hasValue(3);
    assertThat(WriterFence.current(name)).as("nothing left on the thread's stack").isEmpty();
  }

  @Test
  void fenceNameTemplateResolvesPerArgument() {
    String a = TestFence.uniqueId("tpl-a");
    String b = TestFence.uniqueId("tpl-b");

    Observation seenA = writer.write(a);
    Observation seenB = writer.write(b);

    assertThat(seenA.lease()).map(FenceLease::fenceName).contains("corpus:" + a);
    assertThat(seenB.lease()).map(FenceLease::fenceName).contains("corpus:" + b);
    assertThat(EVENTS.acquires("corpus:" + a)).isEqualTo(1);
    assertThat(EVENTS.acquires("corpus:" + b)).isEqualTo(1);

    // Two placeholders.
    writer.writeObject(a, "photos/1.jpg");
    assertThat(TestFence.leaseRow("corpus:" + a + ":photos/1.jpg")).isPresent();

    // One fence per bucket: bucket a held elsewhere does not stop a writer of bucket b.
    FenceLease other =
        OtherWriter.tryAcquire(
                otherWriter,
                FenceRequest.builder("corpus:" + a)
                    .holderLabel("other")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .get();
    try {
      assertThatThrownBy(() -> writer.writeWithFewRetries(a))
          .isInstanceOf(WriterFenceBusyException.class);
      assertThat(writer.write(b).lease()).isPresent();
    } finally {
      otherWriter.release(other);
    }
  }

  @Test
  void nullArgumentFailsBeforeAnyAcquire() {
    String bucket = TestFence.uniqueId("null-arg");
    long rowsBefore = TestFence.leaseRows("corpus:%");

    assertThatThrownBy(() -> writer.write(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("corpus:{0}")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> writer.writeObject(bucket, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("corpus:{0}:{1}")
        .hasMessageContaining("{1} is null");

    assertThat(writer.bodyRuns).as("the method never ran").hasValue(0);
    assertThat(TestFence.leaseRows("corpus:%")).as("no lease row written").isEqualTo(rowsBefore);
    assertThat(TestFence.leaseRows("corpus:" + bucket + "%")).isZero();
    assertThat(TestFence.leaseRows("corpus:null%")).isZero();
    assertThat(EVENTS.eventsStartingWith("corpus:" + bucket)).isZero();
    assertThat(EVENTS.eventsStartingWith("corpus:null")).isZero();
  }

  @Test
  void busyAfterRetriesThrowsAndTheMethodNeverRuns() {
    String bucket = TestFence.uniqueId("busy");
    String name = "corpus:" + bucket;
    FenceLease other =
        OtherWriter.tryAcquire(
                otherWriter,
                FenceRequest.builder(name)
                    .holderLabel("other-writer")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .get();
    try {
      assertThatThrownBy(() -> writer.writeWithFewRetries(bucket))
          .isInstanceOfSatisfying(
              WriterFenceBusyException.class,
              e ->
                  assertThat(e.getMessage())
                      .contains(name)
                      .contains("'other-writer@" + HolderLabel.instance() + "'")
                      // retryMaxAttempts = 3 at 20 ms, then 40 ms: the queued wait's budget
                      .contains("against a budget of 60ms"));
      assertThat(writer.bodyRuns).as("the method never ran").hasValue(0);
      assertThat(EVENTS.busyAttempts(name)).as("polled again within the budget").isGreaterThan(1);
      assertThat(EVENTS.acquires(name)).isZero();
      assertThat(EVENTS.releases(name)).isZero();
      TestFence.LeaseRow row = TestFence.leaseRow(name).orElseThrow();
      assertThat(row.held()).isTrue();
      assertThat(row.holderLabel()).isEqualTo("other-writer@" + HolderLabel.instance());
    } finally {
      assertThat(otherWriter.release(other)).as("the other writer still held it").isTrue();
    }
  }

  @Test
  void typeLevelAnnotationFencesPublicMethodsOnly() {
    TypeFencedWriter typeWriter = new TypeFencedWriter();
    String publicId = TestFence.uniqueId("type-public");
    String otherId = TestFence.uniqueId("type-package");

    Observation seen = typeWriter.publicWrite(publicId);
    assertThat(seen.lease()).map(FenceLease::fenceName).contains("type:" + publicId);
    assertThat(seen.lease())
        .map(FenceLease::holderLabel)
        .contains("type-level@" + HolderLabel.instance());
    assertThat(seen.adviceFrames()).isEqualTo(1);
    assertThat(EVENTS.acquires("type:" + publicId)).isEqualTo(1);
    assertThat(EVENTS.releases("type:" + publicId)).isEqualTo(1);

    Observation unfenced = typeWriter.packagePrivateWrite(otherId);
    assertThat(unfenced.lease()).isEmpty();
    assertThat(unfenced.adviceFrames()).isZero();
    assertThat(TestFence.leaseRows("type:" + otherId)).isZero();
  }

  @Test
  void C08_nestedFencedCallOnTheSameNameRunsInsideTheExistingHold() {
    String bucket = TestFence.uniqueId("c08");
    String name = "corpus:" + bucket;

    List<Observation> seen = writer.pullSync(bucket);

    Observation outer = seen.get(0);
    Observation walk = seen.get(1);
    assertThat(outer.lease()).isPresent();
    assertThat(walk.lease())
        .as("the walk runs under the pull-sync lease")
        .containsSame(outer.lease().get());
    assertThat(walk.adviceFrames()).as("the walk's advice ran, inside the outer one").isEqualTo(2);
    assertThat(EVENTS.acquires(name)).as("one acquire for both").isEqualTo(1);
    assertThat(EVENTS.releases(name)).isEqualTo(1);
    assertThat(writer.bodyRuns).hasValue(2);

    // After the outer hold ends another writer acquires at once, with the next token.
    FenceLease next =
        OtherWriter.tryAcquire(
                otherWriter,
                FenceRequest.builder(name)
                    .holderLabel("next-writer")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .orElseThrow();
    try {
      assertThat(next.fencingToken()).isGreaterThan(outer.lease().get().fencingToken());
    } finally {
      otherWriter.release(next);
    }
  }
}
