package dev.writerfence.demo;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The sums over every writer of a run, for the summary's total row and its JSON.
 *
 * @param threads writer threads
 * @param acquisitions critical sections run
 * @param busy fenced calls that stayed busy through the last attempt
 * @param retries acquire attempts after a busy one
 * @param unavailable fenced calls refused because the database could not confirm a lease
 * @param errors other failed writes
 * @param objects objects written
 * @param meanWaitMs mean wait for a lease over every acquisition
 * @param maxWaitMs longest wait for a lease
 * @param maxToken the highest fencing token of any critical section
 */
record WriterTotals(
    long threads,
    long acquisitions,
    long busy,
    long retries,
    long unavailable,
    long errors,
    long objects,
    double meanWaitMs,
    double maxWaitMs,
    long maxToken) {

  /**
   * @param results every writer's result
   * @return their totals
   */
  static WriterTotals of(List<WriterResult> results) {
    long acquisitions = sum(results, WriterResult::acquisitions);
    long waitUs = sum(results, WriterResult::totalWaitUs);
    return new WriterTotals(
        sum(results, WriterResult::threads),
        acquisitions,
        sum(results, WriterResult::busy),
        sum(results, WriterResult::retries),
        sum(results, WriterResult::unavailable),
        sum(results, WriterResult::errors),
        sum(results, WriterResult::objects),
        acquisitions == 0 ? 0 : waitUs / 1000.0 / acquisitions,
        results.stream().mapToLong(WriterResult::maxWaitUs).max().orElse(0) / 1000.0,
        results.stream()
            .flatMap(r -> r.sections().stream())
            .mapToLong(SectionRecord::token)
            .max()
            .orElse(0));
  }

  private static long sum(List<WriterResult> results, ToLongFunction<WriterResult> count) {
    return results.stream().mapToLong(count).sum();
  }
}
