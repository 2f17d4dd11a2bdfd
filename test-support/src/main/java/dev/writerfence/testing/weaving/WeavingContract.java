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

  @Test
  void C32_aReturnedMonoHoldsItsLeaseUntilItsWorkCompletes() throws Exception {
    expect(Expectation.C32_MONO_HOLDS_ITS_LEASE_UNTIL_ITS_WORK_COMPLETES);
  }

  @Test
  void C32_aReturnedFluxHoldsItsLeaseUntilItsWorkCompletes() throws Exception {
    expect(Expectation.C32_FLUX_HOLDS_ITS_LEASE_UNTIL_ITS_WORK_COMPLETES);
  }

  @Test
  void C32_aCancelledFluxReleasesItsLeaseAtOnce() throws Exception {
    expect(Expectation.C32_CANCELLED_FLUX_RELEASES_AT_ONCE);
  }

  @Test
  void C32_aMonoThatOptedInIsCancelledOnLossAndEndsInFenceLostException() throws Exception {
    expect(Expectation.C32_MONO_IS_CANCELLED_ON_LOSS);
  }

  @Test
  void C32_aFluxThatOptedInIsCancelledOnLossAndEndsInFenceLostException() throws Exception {
    expect(Expectation.C32_FLUX_IS_CANCELLED_ON_LOSS);
  }

  @Test
  void C32_eachSubscriptionTakesItsOwnHold() throws Exception {
    expect(Expectation.C32_EACH_SUBSCRIPTION_TAKES_ITS_OWN_HOLD);
  }

  @Test
  void C32_aResultNeverSubscribedAcquiresNothing() throws Exception {
    expect(Expectation.C32_NEVER_SUBSCRIBED_ACQUIRES_NOTHING);
  }

  @Test
  void C32_rxJavaSingleAndFlowableHoldTheirLease() throws Exception {
    expect(Expectation.C32_RXJAVA_SINGLE_AND_FLOWABLE_HOLD_THEIR_LEASE);
  }

  @Test
  void C32_busyIsTheResultsErrorSignalOrAnEmptyResultWithSkip() throws Exception {
    expect(Expectation.C32_BUSY_IS_AN_ERROR_SIGNAL_OR_EMPTY_WITH_SKIP);
  }

  @Test
  void C32_aResultTypeNoLeaseCanBeHeldForIsRefusedNamingTheMethodAndTheType() throws Exception {
    expect(Expectation.C32_REFUSED_RESULT_TYPE_NAMES_THE_METHOD_AND_THE_TYPE);
  }
}
