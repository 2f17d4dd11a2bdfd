package dev.writerfence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls a {@link FenceListener}, or a {@link FenceLease#onLost} callback, so that it can never cost
 * the caller its lease.
 */
final class ListenerCalls {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerCalls.class);

  private ListenerCalls() {}

  /**
   * Runs one listener call. Whatever it throws is logged and ignored, except a {@link
   * VirtualMachineError}, which is rethrown: the JVM is in no state to go on as if nothing
   * happened.
   */
  static void notify(Runnable call) {
    try {
      call.run();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      LOG.warn("writer-fence: a FenceListener threw; ignored", t);
    }
  }

  /**
   * Runs one {@link FenceLease#onLost} callback, as {@link #notify} runs a listener call.
   *
   * @param fenceName the lease's fence name, for the warning
   */
  static void callback(Runnable call, String fenceName) {
    try {
      call.run();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      LOG.warn("writer-fence: an onLost callback of fence '{}' threw; ignored", fenceName, t);
    }
  }
}
