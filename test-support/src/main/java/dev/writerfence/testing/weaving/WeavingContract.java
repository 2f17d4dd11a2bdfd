package dev.writerfence.testing.weaving;

import org.junit.jupiter.api.Test;

/**
 * The weaving contract as JUnit 5 tests: one test per {@link Expectation}. A weaving mode's test
 * extends {@link InProcessWeavingContract} or {@link ForkedWeavingContract}, which say where the
 * expectations run; nothing else may differ between modes, and no mode may skip one.
 */
public abstract class WeavingContract {
  /** For subclasses. */
  protected WeavingContract() {}

  /**
   * Checks one expectation against the mode under test.
   *
   * @param expectation the expectation; never {@code null}
   * @throws Exception when it is not met ({@link AssertionError}) or cannot be checked
   */
  protected abstract void verify(Expectation expectation) throws Exception;

  private void expect(Expectation expectation) throws Exception {
    verify(expectation);
  }

  @Test
  void busyMeansTheMethodDoesNotRun() throws Exception {
    expect(Expectation.BUSY_MEANS_THE_METHOD_DOES_NOT_RUN);
  }

  @Test
  void busyWithSkipMeansTheMethodDoesNotRunAndReturnsEmpty() throws Exception {
    expect(Expectation.BUSY_WITH_SKIP_MEANS_THE_METHOD_DOES_NOT_RUN_AND_RETURNS_EMPTY);
  }

  @Test
  void priorityReachesTheTicket() throws Exception {
    expect(Expectation.PRIORITY_REACHES_THE_TICKET);
  }

  @Test
  void nestedCallOfTheSameNameJoinsTheOuterHold() throws Exception {
    expect(Expectation.NESTED_CALL_JOINS_THE_OUTER_HOLD);
  }

  @Test
  void holdTakenWithTryAcquireIsJoined() throws Exception {
    expect(Expectation.TRY_ACQUIRE_HOLD_IS_JOINED);
  }

  @Test
  void holdTakenWithAcquireIsJoined() throws Exception {
    expect(Expectation.ACQUIRE_HOLD_IS_JOINED);
  }

  @Test
  void applicationsFencedCallInsideTheMethodJoinsItsHold() throws Exception {
    expect(Expectation.APPLICATION_CALL_INSIDE_THE_METHOD_JOINS_ITS_HOLD);
  }

  @Test
  void holdOfAnotherFenceOnTheSameDatabaseAndSchemaIsJoined() throws Exception {
    expect(Expectation.HOLD_ON_THE_SAME_DATABASE_AND_SCHEMA_IS_JOINED);
  }

  @Test
  void holdInAnotherSchemaIsNotJoined() throws Exception {
    expect(Expectation.HOLD_IN_ANOTHER_SCHEMA_IS_NOT_JOINED);
  }

  @Test
  void returnedCompletionStageKeepsItsLeaseUntilItCompletes() throws Exception {
    expect(Expectation.COMPLETION_STAGE_KEEPS_ITS_LEASE);
  }

  @Test
  void nullNameArgumentFailsBeforeAnyAcquire() throws Exception {
    expect(Expectation.NULL_NAME_FAILS_BEFORE_ANY_ACQUIRE);
  }

  @Test
  void invalidNameArgumentFailsBeforeAnyAcquire() throws Exception {
    expect(Expectation.INVALID_NAME_FAILS_BEFORE_ANY_ACQUIRE);
  }

  @Test
  void typeAnnotationCoversPublicMethodsOnly() throws Exception {
    expect(Expectation.TYPE_ANNOTATION_COVERS_PUBLIC_METHODS_ONLY);
  }

  @Test
  void interfaceMethodAnnotationIsNotHonoured() throws Exception {
    expect(Expectation.INTERFACE_METHOD_ANNOTATION_IS_NOT_HONOURED);
  }

  @Test
  void currentGivesTheLeaseInsideTheMethod() throws Exception {
    expect(Expectation.CURRENT_GIVES_THE_LEASE_INSIDE_THE_METHOD);
  }

  @Test
  void lossInterruptsAMethodThatOptedIn() throws Exception {
    expect(Expectation.LOSS_INTERRUPTS_A_METHOD_THAT_OPTED_IN);
  }
}
