/**
 * A ShedLock {@code LockProvider} backed by the writer-fence lease contract: {@link
 * dev.writerfence.shedlock.WriterFenceLockProvider}. A {@code @SchedulerLock} job moves to the
 * lease row by swapping one bean; its lock name is the fence name, so a scheduled job and a
 * {@code @WriterFenced} writer of the same name exclude each other.
 */
package dev.writerfence.shedlock;
