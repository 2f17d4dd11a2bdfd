package dev.writerfence;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedInvocation;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A fenced call that joined a hold its thread took before (an outer fenced call, or an acquire not
 * yet released), of this copy of core or another: it took no lease of its own, pushed no entry and
 * releases nothing ({@link Joined}; {@link JoinedInterruptible} for a call that asked to be
 * interrupted on loss).
 */
abstract class JoinedCall implements FencedCall {
  @Override
  public boolean joined() {
    return true;
  }

  @Override
  public FenceLease lease() {
    return null;
  }

  @Override
  public HeldFenceStack.Entry entry() {
    return null;
  }

  @Override
  public Object proceed(FencedInvocation invocation, Class<?> declaredReturnType) throws Throwable {
    return HeldLease.around(this, invocation, declaredReturnType);
  }

  /**
   * A fenced call inside a hold this thread took before that asked to be interrupted on loss: it
   * releases nothing, interrupts its thread if the hold is lost while it runs, and then ends in
   * {@link FenceLostException}.
   */
  static final class JoinedInterruptible extends JoinedCall {
    private final FenceLease outer;
    private final Interrupter interrupter;
    private final Runnable unpin; // null: nothing pinned (another copy of core's hold)

    private JoinedInterruptible(FenceLease outer, Interrupter interrupter, Runnable unpin) {
      this.outer = outer;
      this.interrupter = interrupter;
      this.unpin = unpin;
    }

    /**
     * Joins a hold and, when this copy of core holds it, pins it as {@link Joined} does, so the
     * outer call's release waits for this call's work.
     *
     * @param outerEntry the hold it joins, found valid on this thread, of any copy of core
     * @return the joined call, or {@code null} when the hold ended meanwhile (acquire instead)
     * @throws UnsupportedOperationException when an older copy of core holds it, which cannot tell
     *     of a loss; the method must not run
     */
    static JoinedInterruptible of(HeldFenceStack.Entry outerEntry) {
      Runnable unpin = null;
      if (outerEntry instanceof HeldLease.StackEntry own) {
        unpin = own.held().pin();
        if (unpin == null) {
          return null;
        }
      }
      FenceLease outer = FenceLease.of(outerEntry);
      Interrupter i = new Interrupter(Thread.currentThread());
      FenceLease.Registration r;
      try {
        r = outer.onLost(lost -> i.accept(lost.reason()));
      } catch (RuntimeException | Error e) {
        if (unpin != null) {
          unpin.run();
        }
        throw e;
      }
      i.watch(r::cancel);
      return new JoinedInterruptible(outer, i, unpin);
    }

    @Override
    public FenceLease underLease() {
      return outer;
    }

    @Override
    public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
      interrupter.disarm();
      Joined.unpinWhenDone(unpin, returned, thrown);
      Optional<String> reason = outer.lostReason();
      if (reason.isPresent()) {
        throw Interrupter.lostDuringTheCall(outer, reason.get(), thrown);
      }
      return returned;
    }
  }

  /**
   * A fenced call inside a hold this thread took before: it releases nothing. Inside a hold of this
   * copy of core it pins that lease until its own work ends (a stage it returned completes, its
   * exit otherwise), so the outer call's release cannot leave that work unleased.
   */
  static final class Joined extends JoinedCall {
    private final HeldFenceStack.Entry outer;
    private final Runnable unpin; // null: nothing pinned (another copy of core's hold)

    private Joined(HeldFenceStack.Entry outer, Runnable unpin) {
      this.outer = outer;
      this.unpin = unpin;
    }

    /**
     * @param outer the hold to join, found valid on this thread
     * @return the joined call, or {@code null} when the hold ended meanwhile (acquire instead)
     */
    static Joined of(HeldFenceStack.Entry outer) {
      if (!(outer instanceof HeldLease.StackEntry own)) {
        return new Joined(outer, null);
      }
      Runnable unpin = own.held().pin();
      return unpin == null ? null : new Joined(outer, unpin);
    }

    /** The outer hold's lease: its loss is this call's loss too. */
    @Override
    public FenceLease underLease() {
      return FenceLease.of(outer);
    }

    @Override
    public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
      unpinWhenDone(unpin, returned, thrown);
      return returned;
    }

    /** Unpins once the joined work has ended: at once, or when a returned stage completes. */
    static void unpinWhenDone(Runnable unpin, Object returned, Throwable thrown) {
      if (unpin == null) {
        return;
      }
      if (thrown == null && returned instanceof CompletionStage<?> stage) {
        stage.whenComplete((value, failure) -> unpin.run());
      } else {
        unpin.run();
      }
    }
  }
}
