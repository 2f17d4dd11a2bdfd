package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Gives the starter's fence the application's {@link ObservationRegistry}, so that each acquire and
 * each hold is a Micrometer observation (a span under Micrometer Tracing, a child of the
 * request's). A bean of {@link WriterFenceObservationAutoConfiguration}; off with {@code
 * writer-fence.observations.enabled=false}, and then nothing is observed.
 */
public final class WriterFenceObservations {
  private final Supplier<ObservationRegistry> registry;

  /**
   * @param registry the application's registry, read when the fence is built; it may supply {@code
   *     null} (no registry, or more than one): then the fence observes nothing
   * @throws NullPointerException when {@code registry} is null
   */
  public WriterFenceObservations(Supplier<ObservationRegistry> registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * @param builder the fence's builder; never {@code null}
   * @return the builder, given the registry when there is one
   */
  public WriterFence.Builder applyTo(WriterFence.Builder builder) {
    ObservationRegistry r = registry.get();
    return r == null ? builder : builder.observationRegistry(r);
  }
}
