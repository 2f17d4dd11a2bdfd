package com.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.testing.FenceAssert;
import dev.writerfence.testing.TestFence;
import dev.writerfence.testing.WriterFenceExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/** The test kit as an application's tests use it, on whichever JUnit the application has. */
@ExtendWith(WriterFenceExtension.class)
class UploaderTest {
  private final FakeBucket bucket = new FakeBucket();

  @Test
  void reportsTheJUnitItRunsOn() {
    System.out.println(
        "kit test ran under JUnit Jupiter "
            + ExtensionContext.class.getPackage().getImplementationVersion());
  }

  @Test
  void uploadsUnderTheFence(TestFence fence) {
    new Uploader(fence.fence(), bucket).upload("a.txt", "a");

    assertThat(bucket.objects).containsOnlyKeys("a.txt");
  }

  @Test
  void theFakeBucketRefusesAWriteOutsideTheFence() {
    assertThatThrownBy(() -> bucket.put("a.txt", new byte[0]))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("'corpus'");
    assertThatThrownBy(() -> FenceAssert.assertFenced("corpus"))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void givesUpWhenAnotherWriterHoldsTheFence(TestFence fence) {
    try (TestFence.Rival other = fence.holdBusy("corpus")) {
      assertThatThrownBy(() -> new Uploader(fence.fence(), bucket).upload("a.txt", "a"))
          .isInstanceOf(WriterFenceBusyException.class);
    }
    assertThat(bucket.objects).isEmpty();
  }

  @Test
  void aLostLeaseFailsItsNextCheck(TestFence fence, WriterFence writerFence) {
    writerFence.run(
        FenceRequest.of("corpus"),
        () -> {
          FenceLease lease = fence.assertFenced("corpus");

          try (TestFence.Rival rival = fence.takeOver("corpus")) {
            assertThat(rival.fencingToken()).isGreaterThan(lease.fencingToken());
            assertThatThrownBy(lease::checkValid).isInstanceOf(FenceLostException.class);
            assertThatThrownBy(() -> FenceAssert.assertFenced("corpus"))
                .isInstanceOf(AssertionError.class);
          }
        });
    assertThat(fence.lost()).hasSize(1);
  }

  @Test
  void aReadOnlyDatabaseMakesTheFenceUnavailable(TestFence fence) {
    try (TestFence.Outage outage = fence.readOnly()) {
      assertThatThrownBy(() -> new Uploader(fence.fence(), bucket).upload("a.txt", "a"))
          .isInstanceOf(WriterFenceUnavailableException.class);
    }
    assertThat(bucket.objects).isEmpty();
  }

  @Test
  void anUnreachableDatabaseMakesTheFenceUnavailable(TestFence fence) {
    try (TestFence.Outage outage = fence.unreachable()) {
      assertThatThrownBy(() -> new Uploader(fence.fence(), bucket).upload("a.txt", "a"))
          .isInstanceOf(WriterFenceUnavailableException.class);
    }
    new Uploader(fence.fence(), bucket).upload("a.txt", "a");
    assertThat(bucket.objects).containsOnlyKeys("a.txt");
  }
}
