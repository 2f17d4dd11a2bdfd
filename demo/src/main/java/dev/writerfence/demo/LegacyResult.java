package dev.writerfence.demo;

import dev.writerfence.cli.audit.UnfencedWriteRow;
import java.util.List;

/**
 * What the legacy writer did, as its agent's audit report says.
 *
 * @param pid its process id
 * @param exitCode its exit status; {@code null} when it had to be killed
 * @param unfenced the unfenced writes its agent listed, one per call site
 * @param failure why its report could not be had, or {@code null}
 */
record LegacyResult(long pid, Integer exitCode, List<UnfencedWriteRow> unfenced, String failure) {
  /**
   * @return the unfenced writes, all call sites together
   */
  long unfencedWrites() {
    return unfenced.stream().mapToLong(UnfencedWriteRow::count).sum();
  }
}
