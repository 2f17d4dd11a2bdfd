package dev.writerfence;

/**
 * Guarded code that is given its lease and returns a result, for {@link WriterFence#callWithLease}.
 *
 * @param <T> the result type
 * @param <E> the checked exception the code may throw; {@link RuntimeException} for none
 */
@FunctionalInterface
public interface FencedFunction<T, E extends Exception> {
  /**
   * @param lease the lease the code runs under; never {@code null}
   * @return the result
   * @throws E what the guarded code threw
   */
  T apply(FenceLease lease) throws E;
}
