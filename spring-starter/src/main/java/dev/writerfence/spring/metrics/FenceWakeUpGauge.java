package dev.writerfence.spring.metrics;

import dev.writerfence.WriterFence;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The gauge {@value #NOTIFIED}: how the application's fence wakes the writers that wait at the
 * front of a queue ({@link WriterFence#queueWakeUp()}): 1 when a probe proved that the release's
 * notifications arrive, 0 when they did not (a transaction pooler without {@code queue.listen-url}:
 * the front polls), {@code NaN} before the first wait proved either and when the fence does not
 * listen. Reading it costs no statement.
 */
public final class FenceWakeUpGauge implements MeterBinder {
  /** The gauge's name. */
  public static final String NOTIFIED = "writer.fence.queue.notified";

  private final Supplier<WriterFence> fence;

  /**
   * @param fence supplies the application's fence; {@code null} from it reads {@code NaN}
   */
  public FenceWakeUpGauge(Supplier<WriterFence> fence) {
    this.fence = Objects.requireNonNull(fence, "fence");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder(NOTIFIED, this, FenceWakeUpGauge::value)
        .description(
            "1 when queued writers are woken by the release's notification, 0 when they poll"
                + " (notifications did not arrive), NaN while not known or not listening")
        .register(registry);
  }

  /**
   * @return the gauge's value now
   */
  double value() {
    WriterFence f = fence.get();
    return f == null ? Double.NaN : value(f.queueWakeUp());
  }

  /**
   * @param mode what {@link WriterFence#queueWakeUp()} answered
   * @return 1 for {@code notified}, 0 for {@code polled}, else {@code NaN}
   */
  static double value(String mode) {
    return switch (mode) {
      case "notified" -> 1;
      case "polled" -> 0;
      default -> Double.NaN;
    };
  }
}
