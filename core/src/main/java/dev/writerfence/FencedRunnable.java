package dev.writerfence;

/**
 * Guarded code that returns nothing and may throw a checked exception, for {@link WriterFence#run}.
 *
 * @param <E> the checked exception the code may throw; {@link RuntimeException} for none
 */
@FunctionalInterface
public interface FencedRunnable<E extends Exception> {
  /**
   * @throws E what the guarded code threw
   */
  void run() throws E;
}
