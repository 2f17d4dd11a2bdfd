package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceMetricsAutoConfiguration;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code writer.fence.lost} counts the losses the core reports ({@code FenceListener.lost}), with a
 * short TTL and renewal interval from {@code writer-fence.*}; {@code writer.fence.release.mismatch}
 * stays a counter of its own.
 */
class LostLeaseMetricTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class,
                  WriterFenceMetricsAutoConfiguration.class,
                  WriterFenceAutoConfiguration.class))
          .withBean(DataSource.class, () -> EmbeddedDatabase.get().dataSource())
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withBean(Job.class)
          .withPropertyValues(
              "writer-fence.holder=lost-test",
              "writer-fence.ttl=3s",
              "writer-fence.renew-interval=200ms");

  /** A fenced job whose lease is taken over behind its back while it runs. */
  public static class Job {
    private final MeterRegistry meters;

    public Job(MeterRegistry meters) {
      this.meters = meters;
    }

    @WriterFenced("{0}")
    public FenceLostException runWhileTakenOver(String fence) {
      FenceLease lease = WriterFence.current(fence).orElseThrow();
      lease.checkValid();
      assertThat(gauge(meters, fence)).isEqualTo(1.0);
      takeOver(fence);
      // The next renewal (within 200 ms) finds another holder's token: the lease is lost.
      Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> count(meters, MicrometerFenceListener.LOST, fence) == 1.0);
      assertThat(lease.isValid()).isFalse();
      assertThat(gauge(meters, fence)).isZero();
      assertThat(count(meters, MicrometerFenceListener.RELEASE_MISMATCH, fence)).isZero();
      return catchThrowableOfType(FenceLostException.class, lease::checkValid);
    }
  }

  @Test
  void aLeaseTakenOverBehindTheHoldersBackCountsAsLost() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          WriterFence fence = context.getBean(WriterFence.class);
          assertThat(fence.renewInterval(Duration.ofSeconds(3))).contains(Duration.ofMillis(200));
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          Job job = context.getBean(Job.class);
          String name = FenceNames.random("lost");

          FenceLostException lost = job.runWhileTakenOver(name);

          assertThat(lost).isNotNull();
          assertThat(lost.reason()).contains("expired or taken over");
          // The call's release found the other token: a mismatch, and still one loss.
          assertThat(count(meters, MicrometerFenceListener.RELEASE_MISMATCH, name)).isEqualTo(1.0);
          assertThat(count(meters, MicrometerFenceListener.LOST, name)).isEqualTo(1.0);
          assertThat(meters.get(MicrometerFenceListener.LOST).tag("fence", name).counter().getId())
              .satisfies(
                  id ->
                      assertThat(id.getTag("holder"))
                          .as("the configured label, without the instance part")
                          .isEqualTo("lost-test"));
        });
  }

  @Test
  void aReleaseMismatchWithoutALossIsNotCountedLost() {
    runner.run(
        context -> {
          WriterFence fence = context.getBean(WriterFence.class);
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          String name = FenceNames.random("mismatch");
          FenceLease lease = fence.tryAcquire(FenceRequest.builder(name).build()).orElseThrow();
          // The row is freed behind the holder (as an operator would), so its own release finds
          // no row of its token: the store answers false, and the lease was never lost.
          new ContractCalls(EmbeddedDatabase.get().dataSource(), "writer_fence")
              .release(name, lease.holderToken());
          assertThat(fence.release(lease)).isFalse();

          assertThat(count(meters, MicrometerFenceListener.RELEASE_MISMATCH, name)).isEqualTo(1.0);
          assertThat(count(meters, MicrometerFenceListener.LOST, name)).isZero();
        });
  }

  @Test
  void aHeldLeaseIsRenewedPastItsTtlAndNotLost() {
    runner.run(
        context -> {
          WriterFence fence = context.getBean(WriterFence.class);
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          String name = FenceNames.random("renewed");
          FenceLease lease = fence.tryAcquire(FenceRequest.builder(name).build()).orElseThrow();
          try {
            // Past the 3 s TTL: only renewal keeps it valid and held throughout.
            await()
                .during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(6))
                .until(() -> lease.isValid() && "held".equals(status(name)));
          } finally {
            assertThat(fence.release(lease)).isTrue();
          }
          assertThat(count(meters, MicrometerFenceListener.LOST, name)).isZero();
        });
  }

  static void takeOver(String fence) {
    // As the schema's owner, behind the holder's back: another holder token in the row.
    EmbeddedDatabase.get()
        .queryValue(
            Long.class,
            "UPDATE writer_fence.lease SET holder_token = gen_random_uuid()"
                + " WHERE fence_name = ? RETURNING fencing_token",
            fence);
  }

  static double count(MeterRegistry meters, String meter, String fence) {
    var counter = meters.find(meter).tag("fence", fence).counter();
    return counter == null ? 0.0 : counter.count();
  }

  static double gauge(MeterRegistry meters, String fence) {
    var gauge = meters.find(MicrometerFenceListener.HELD).tag("fence", fence).gauge();
    return gauge == null ? 0.0 : gauge.value();
  }

  private static String status(String name) {
    return EmbeddedDatabase.get()
        .queryValue(
            String.class, "SELECT state FROM writer_fence.lease_status WHERE fence_name = ?", name);
  }
}
