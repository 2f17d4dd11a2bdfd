package dev.writerfence.demo;

import java.util.List;

/**
 * What {@link RecordChecker} found.
 *
 * @param sections critical sections checked
 * @param objects objects read back from the bucket
 * @param overlaps sections that started before an earlier one ended
 * @param tokenOrderViolations sections whose fencing token is not greater than that of the section
 *     before them
 * @param leaseViolations sections that ran outside the lease their token belongs to
 * @param stampViolations keys whose object is missing, unrecorded, or stamped by another lease than
 *     the last one that wrote it
 * @param handovers times the fence passed from one writer process to another
 * @param examples the first violation messages
 */
public record CheckReport(
    int sections,
    int objects,
    int overlaps,
    int tokenOrderViolations,
    int leaseViolations,
    int stampViolations,
    int handovers,
    List<String> examples) {

  /**
   * @return all violations of every kind
   */
  public int violations() {
    return overlaps + tokenOrderViolations + leaseViolations + stampViolations;
  }
}
