package dev.writerfence;

/**
 * Guarded code that is given its lease and returns nothing, for {@link WriterFence#runWithLease}.
 *
 * @param <E> the checked exception the code may throw; {@link RuntimeException} for none
 */
@FunctionalInterface
public interface FencedConsumer<E extends Exception> {
  /**
   * @param lease the lease the code runs under; never {@code null}
   * @throws E what the guarded code threw
   */
  void accept(FenceLease lease) throws E;
}
