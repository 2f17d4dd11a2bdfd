package dev.writerfence.internal.weaving;

/**
 * Proceeds to an advised method: the shape every weaving mode hands to {@link FencedCalls#proceed}.
 */
@FunctionalInterface
public interface FencedInvocation {
  /**
   * @return the method's result
   * @throws Throwable what the method threw
   */
  Object proceed() throws Throwable;
}
