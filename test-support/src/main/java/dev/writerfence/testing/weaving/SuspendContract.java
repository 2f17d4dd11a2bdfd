package dev.writerfence.testing.weaving;

import dev.writerfence.testing.FenceNames;
import org.junit.jupiter.api.Test;

/**
 * Case C32 for Kotlin {@code suspend} functions, for every weaving mode ({@link SuspendChecks}): a
 * mode's test extends this and runs each check where its weaving is, in its own JVM or in a forked
 * one.
 */
public abstract class SuspendContract {
  /** One check of {@link SuspendChecks}, by name, so a forked JVM can be told which to run. */
  public enum Check {
    /** {@link SuspendChecks#heldUntilItResumesItsCaller}. */
    HELD_UNTIL_IT_RESUMES_ITS_CALLER,
    /** {@link SuspendChecks#releasedWhenItFails}. */
    RELEASED_WHEN_IT_FAILS,
    /** {@link SuspendChecks#releasedWhenCancelled}. */
    RELEASED_WHEN_CANCELLED,
    /** {@link SuspendChecks#nestedCallJoinsTheHold}. */
    NESTED_CALL_JOINS_THE_HOLD;

    /**
     * Runs the check with a fence name of its own.
     *
     * @param checks the checks of the mode's writer; never {@code null}
     * @throws Exception when it is not met ({@link AssertionError}) or cannot be checked
     */
    public void runOn(SuspendChecks checks) throws Exception {
      String name = FenceNames.random("c32-suspend-" + ordinal());
      switch (this) {
        case HELD_UNTIL_IT_RESUMES_ITS_CALLER -> checks.heldUntilItResumesItsCaller(name);
        case RELEASED_WHEN_IT_FAILS -> checks.releasedWhenItFails(name);
        case RELEASED_WHEN_CANCELLED -> checks.releasedWhenCancelled(name);
        case NESTED_CALL_JOINS_THE_HOLD -> checks.nestedCallJoinsTheHold(name);
      }
    }
  }

  /** For subclasses. */
  protected SuspendContract() {}

  /**
   * Runs one check against the mode's fenced Kotlin writer.
   *
   * @param check the check
   * @throws Exception when it is not met ({@link AssertionError}) or cannot be checked
   */
  protected abstract void verify(Check check) throws Exception;

  @Test
  void C32_aSuspendFunctionHoldsItsLeaseUntilItResumesItsCaller() throws Exception {
    verify(Check.HELD_UNTIL_IT_RESUMES_ITS_CALLER);
  }

  @Test
  void C32_aSuspendFunctionThatFailsReleasesItsLease() throws Exception {
    verify(Check.RELEASED_WHEN_IT_FAILS);
  }

  @Test
  void C32_aCancelledSuspendFunctionReleasesItsLease() throws Exception {
    verify(Check.RELEASED_WHEN_CANCELLED);
  }

  @Test
  void C32_aNestedSuspendCallOfTheSameNameJoinsTheHold() throws Exception {
    verify(Check.NESTED_CALL_JOINS_THE_HOLD);
  }
}
