package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.LazyResults.Enter;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One subscription's hold (or one suspend call's), from its acquire to its release; {@link
 * #SKIPPED} when the fence stayed busy and the call skips. It is the same for every library ({@link
 * LazyResults}): what differs between Reactor, RxJava and Kotlin is only when each calls {@link
 * #release}. A subscription cancelled on loss watches the lease it runs under from here ({@link
 * #watchLoss}) until its release.
 */
final class LazyHold {
  static final LazyHold SKIPPED = new LazyHold(null, CarriedHolds.none());

  private final FencedCall call; // null: skipped
  private final HeldFenceStack.Entry entry; // null: joined or skipped
  private final CarriedHolds outer; // what a joined subscription runs inside
  private volatile FenceLease.Registration lossWatch; // null: not watched

  /** Whether the work took this hold, or a cancel before that dropped it: once, either way. */
  private final AtomicInteger stage = new AtomicInteger(NEW);

  private final AtomicBoolean released = new AtomicBoolean();

  private static final int NEW = 0;
  private static final int USED = 1;
  private static final int DROPPED = 2;

  private LazyHold(FencedCall call, CarriedHolds outer) {
    this.call = call;
    this.entry = call == null ? null : call.entry();
    this.outer = outer;
  }

  /**
   * Enters, and takes the acquired lease off the entering thread: it travels with the work.
   *
   * @param outer the holds of an enclosing subscription, from the subscriber's Reactor context
   *     ({@link CarriedHolds#none()} elsewhere): entered inside them, a call of the same name joins
   *     that hold even on a thread that none of it reached
   */
  static LazyHold enter(Enter enter, SkipOnBusy skip, CarriedHolds outer) {
    FencedCall call;
    CarriedHolds.Scope inside = outer.restore();
    try {
      call = enter.enter();
    } catch (RuntimeException e) {
      // Busy as this copy of core's class, or as the application's (the agent's enter).
      if (skip == null || !isBusy(e)) {
        throw e;
      }
      skip.skipped(e.getMessage());
      return SKIPPED;
    } finally {
      inside.close();
    }
    LazyHold hold = new LazyHold(call, outer);
    if (hold.entry != null) {
      HeldFenceStack.pop(hold.entry);
    }
    return hold;
  }

  /**
   * Puts the lease on the subscribing thread while the body's result is subscribed: the acquired
   * one, or for a joined subscription the outer holds it joined.
   *
   * @return what to close, on this thread, when the body's result is subscribed
   */
  CarriedHolds.Scope push() {
    if (entry != null) {
      HeldFenceStack.push(entry);
      return () -> HeldFenceStack.pop(entry);
    }
    return outer.restore();
  }

  /**
   * Tells {@code lost} once of the loss of the lease this subscription runs under (its own, or the
   * outer hold's it joined), until the hold is released; at once, on this thread, when that lease
   * is lost already.
   *
   * @throws UnsupportedOperationException when that lease cannot tell of a loss (another, older
   *     copy of core holds it): a subscription that asked to be cancelled on loss then fails before
   *     the method runs, rather than run unwatched
   */
  void watchLoss(Consumer<FenceLostException> lost) {
    FenceLease lease = call.underLease();
    if (lease == null) {
      throw new UnsupportedOperationException(
          "writer-fence: "
              + this
              + " cannot tell of its lease's loss, so its subscription cannot be cancelled on"
              + " loss; the method does not run");
    }
    lossWatch = lease.onLost(lost);
  }

  /** The acquired lease's entry, or {@code null} for a joined or skipped hold. */
  HeldFenceStack.Entry entry() {
    return entry;
  }

  /**
   * Takes the hold for the work: only once, and never after {@link #drop()}.
   *
   * @return {@code false} when a cancel dropped it first: the work must not run
   */
  boolean claim() {
    return call == null || stage.compareAndSet(NEW, USED);
  }

  /** Releases a hold its subscription was cancelled before taking; no-op once the work took it. */
  void drop() {
    if (call != null && stage.compareAndSet(NEW, DROPPED)) {
      release(null);
    }
  }

  /**
   * Releases an acquired lease, or lets go of the outer hold a joined subscription pinned, once;
   * never throws (a failure goes to {@code failure} or the log). A loss after this ends nothing.
   */
  void release(Throwable failure) {
    if (!released.compareAndSet(false, true)) {
      return; // dropped on cancel, then told of the end by usingWhen: released once
    }
    FenceLease.Registration watch = lossWatch;
    if (watch != null) {
      watch.cancel();
    }
    if (call != null) {
      call.exit(null, failure, Void.class);
    }
  }

  /** Busy thrown as another copy of core's class (the agent's relocated one, or the other way). */
  private static boolean isBusy(Throwable e) {
    for (Class<?> c = e.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getSimpleName().equals("WriterFenceBusyException")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return call == null ? "skipped hold" : "hold of " + (entry == null ? "an outer call" : entry);
  }
}
