package dev.writerfence.shedlock;

import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The locks each thread took, innermost last, so a job can read its fencing token. ShedLock runs a
 * task on the thread that locked it, but a lock may be extended (ShedLock's keep-alive does it on a
 * timer thread) or unlocked elsewhere: each entry knows its thread's deque, which is concurrent.
 */
final class CurrentLocks {
  private static final ThreadLocal<Deque<Entry>> LOCKS =
      ThreadLocal.withInitial(ConcurrentLinkedDeque::new);

  private CurrentLocks() {}

  /** One lock on the thread that took it; its lease changes when the lock is extended. */
  static final class Entry {
    private final Deque<Entry> owner;
    private volatile LockLease lease;

    private Entry(Deque<Entry> owner, LockLease lease) {
      this.owner = owner;
      this.lease = lease;
    }

    LockLease lease() {
      return lease;
    }

    void extended(LockLease newLease) {
      lease = newLease;
    }

    /** The lock is unlocked, or its lease was found gone: the thread holds it no more. */
    void end() {
      owner.remove(this);
    }
  }

  static Entry push(LockLease lease) {
    Deque<Entry> locks = LOCKS.get();
    Entry entry = new Entry(locks, lease);
    locks.addLast(entry);
    return entry;
  }

  static Optional<LockLease> find(String lockName) {
    for (Iterator<Entry> it = LOCKS.get().descendingIterator(); it.hasNext(); ) {
      LockLease lease = it.next().lease;
      if (lease.lockName().equals(lockName)) {
        return Optional.of(lease);
      }
    }
    return Optional.empty();
  }
}
