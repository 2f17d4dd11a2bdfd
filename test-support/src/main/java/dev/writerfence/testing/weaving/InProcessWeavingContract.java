package dev.writerfence.testing.weaving;

/** The weaving contract for a mode that fences the writers in the test's own JVM. */
public abstract class InProcessWeavingContract extends WeavingContract {
  /** For subclasses. */
  protected InProcessWeavingContract() {}

  /**
   * @return the mode's writers and database; never {@code null}
   */
  protected abstract WeavingSubject subject();

  @Override
  protected final void verify(Expectation expectation) throws Exception {
    expectation.checkOn(subject());
  }
}
