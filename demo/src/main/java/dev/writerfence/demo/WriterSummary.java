package dev.writerfence.demo;

/**
 * What one writer process counted, written as its {@code .summary.json} when it ends.
 *
 * @param writer the holder label
 * @param pid the process id
 * @param threads writer threads
 * @param acquisitions critical sections run (leases acquired)
 * @param busy fenced calls that stayed busy through the last attempt (an expected outcome)
 * @param retries acquire attempts after a busy one, over all calls
 * @param unavailable fenced calls refused because the database could not confirm a lease
 * @param errors other failures (a write that failed, a clock read that failed)
 * @param objects objects written
 * @param handOver how its queued waits learnt of a release, as {@link
 *     dev.writerfence.WriterFence#queueWakeUp()} answered at its end: {@code notified}, {@code
 *     polled}, {@code pending} (it never waited in the queue) or {@code off}; {@code null} in a
 *     summary written without it
 */
public record WriterSummary(
    String writer,
    long pid,
    int threads,
    long acquisitions,
    long busy,
    long retries,
    long unavailable,
    long errors,
    long objects,
    String handOver) {}
