package dev.writerfence;

import dev.writerfence.spi.TransientLeaseStoreException;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the release of a hold ended, logged and told to the fence's listener: the one place that
 * words a release that freed nothing or failed. None of it runs for a release that freed the row of
 * a fence without a listener.
 */
final class ReleaseOutcomes {
  private static final Logger LOG = LoggerFactory.getLogger(HeldLease.class);

  private ReleaseOutcomes() {}

  /** The release statement answered: logged when it freed nothing, told to the listener. */
  static void released(HeldLease held, boolean freed, boolean lost, FenceListener listener) {
    if (!freed && lost) {
      LOG.debug(
          "writer-fence: release of lost fence '{}' ({}) found another holder or a free row",
          held.fenceName(),
          FencingTokens.inWords(held.fencingToken()));
    } else if (!freed) {
      LOG.warn(
          "writer-fence: release of fence '{}' ({}, holder '{}') found another holder"
              + " or a free row: the lease had expired",
          held.fenceName(),
          FencingTokens.inWords(held.fencingToken()),
          held.holderLabel());
    }
    told(held, listener, freed);
  }

  /**
   * The release statement failed: a lost lease answers {@code false} (its loss was logged already);
   * any other failure is thrown, a transient one as unavailable.
   *
   * @return {@code false}, for a lost lease
   */
  static boolean failed(
      HeldLease held, RuntimeException e, boolean lost, FenceListener listener, Instant expiresAt) {
    String fenceName = held.fenceName();
    if (lost) {
      LOG.debug("writer-fence: release of lost fence '{}' failed", fenceName, e);
      told(held, listener, false);
      return false;
    }
    if (!(e instanceof WriterFenceUnavailableException)
        && !(e instanceof TransientLeaseStoreException)) {
      // The store answered, but not with a release (an advisory unlock that found no lock):
      // for listeners and metrics that is a release that freed nothing.
      told(held, listener, false);
    }
    if (e instanceof TransientLeaseStoreException t) {
      throw new WriterFenceUnavailableException(
          fenceName,
          "writer-fence: fence '"
              + fenceName
              + "': the release kept failing transiently (SQLState "
              + t.sqlState()
              + "); the lease frees itself at its expiry "
              + expiresAt
              + " (database clock)",
          e);
    }
    throw e;
  }

  /** A release after the guarded code, which returned normally, failed: logged, not thrown. */
  static void failedAfterCall(HeldLease held, RuntimeException e) {
    LOG.warn(
        "writer-fence: release of fence '{}' ({}) failed; {}",
        held.fenceName(),
        FencingTokens.inWords(held.fencingToken()),
        afterFailure(e, held.expiresAt()),
        e);
  }

  /** The shutdown hook's release failed: logged. */
  static void failedAtShutdown(HeldLease held, RuntimeException e, Instant expiresAt) {
    LOG.warn(
        "writer-fence: at shutdown the release of fence '{}' ({}) failed; {}",
        held.fenceName(),
        FencingTokens.inWords(held.fencingToken()),
        afterFailure(e, expiresAt),
        e);
  }

  /** Tells the fence's listener, if it has one, of a release. */
  static void told(HeldLease held, FenceListener listener, boolean freed) {
    if (listener != null) {
      FenceLease v = held.view();
      ListenerCalls.notify(() -> listener.released(v, freed));
    }
  }

  /** What becomes of a lease whose release failed, for the warning. */
  private static String afterFailure(RuntimeException failure, Instant expiresAt) {
    if (failure instanceof WriterFenceUnavailableException) {
      return "the lease frees itself at its expiry "
          + expiresAt
          + " (database clock) or, with the advisory backend, when its connection closes";
    }
    return "the store refused the release: " + failure.getMessage();
  }
}
