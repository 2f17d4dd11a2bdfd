package dev.writerfence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls a {@link FenceListener} so that it can never cost the caller its lease. */
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
}
