package dev.writerfence;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The thread of a fenced call that asked to be interrupted when its lease is lost, while that call
 * runs: {@link #disarm} at the call's end, on its thread, and from then on the thread is never
 * interrupted by it (both hold this object's lock, so an interrupt is sent before the call's end or
 * never).
 */
final class Interrupter implements Consumer<String> {
  private final Thread thread;
  private boolean armed = true;
  private boolean interrupted; // this sent the interrupt
  private BooleanSupplier registration;

  Interrupter(Thread thread) {
    this.thread = thread;
  }

  synchronized void watch(BooleanSupplier registered) {
    registration = registered;
  }

  /** On the thread that tells of the loss. */
  @Override
  public synchronized void accept(String reason) {
    if (!armed) {
      return;
    }
    armed = false;
    if (!thread.isInterrupted()) { // interrupted already by someone else: theirs stays theirs
      interrupted = true;
      thread.interrupt();
    }
  }

  /**
   * On the call's own thread as it ends: never interrupts from now on, and clears an interrupt it
   * sent, so the thread's next work does not inherit it.
   */
  void disarm() {
    BooleanSupplier r;
    boolean clear;
    synchronized (this) {
      armed = false;
      clear = interrupted;
      interrupted = false;
      r = registration;
    }
    if (r != null) {
      r.getAsBoolean();
    }
    if (clear) {
      Thread.interrupted();
    }
  }

  /**
   * @return what a call that asked to be interrupted on loss ends with once its lease was lost: the
   *     body's own {@link FenceLostException} of that lease, or a new one with what the body threw
   *     as its cause
   */
  static FenceLostException lostDuringTheCall(FenceLease lease, String reason, Throwable thrown) {
    if (thrown instanceof FenceLostException own && own.fencingToken() == lease.rawFencingToken()) {
      return own;
    }
    return new FenceLostException(lease, reason + " (while the fenced call ran)", thrown);
  }
}
