package dev.writerfence.demo;

import java.util.List;

/**
 * One critical section as a writer recorded it: one line of a writer's {@code .sections.jsonl}.
 * Every time is the database clock in microseconds since the epoch.
 *
 * @param writer the writer's holder label
 * @param pid the writer's process id
 * @param thread the writer thread, from 0
 * @param token the fencing token of the lease the section ran under
 * @param leaseAcquiredUs when that lease was granted
 * @param leaseExpiresUs when that lease would expire
 * @param startUs {@code clock_timestamp()} read on entry to the fenced method
 * @param endUs {@code clock_timestamp()} read before leaving it
 * @param keys the object keys written, in order
 * @param attempts acquire attempts it took, at least 1
 * @param waitUs time from the first acquire attempt to the lease (the writer's monotonic clock)
 * @param error the write that failed and why, or {@code null}
 */
public record SectionRecord(
    String writer,
    long pid,
    int thread,
    long token,
    long leaseAcquiredUs,
    long leaseExpiresUs,
    long startUs,
    long endUs,
    List<String> keys,
    int attempts,
    long waitUs,
    String error) {

  /**
   * @return a short description for violation messages
   */
  public String describe() {
    return "section of "
        + writer
        + " (pid "
        + pid
        + ", thread "
        + thread
        + ", fencing token "
        + token
        + ", "
        + Micros.format(startUs)
        + " .. "
        + Micros.format(endUs)
        + ")";
  }
}
