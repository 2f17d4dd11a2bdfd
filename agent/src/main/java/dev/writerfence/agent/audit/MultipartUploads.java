package dev.writerfence.agent.audit;

import java.util.Set;

/**
 * Which operations of one storage client form one logical multipart write: a start, then steps
 * (parts, copies of parts) up to an end (complete or abort). The audit judges each step as every
 * write is, but counts the steps in the row of their start. It is the client's own knowledge, so
 * each {@link ClientAudit} that has multipart uploads says it ({@link ClientAudit#multipart()}).
 *
 * @param starts operation names that begin an upload, such as {@code createMultipartUpload}
 * @param steps operation names of later steps, the ends included
 * @param ends the steps that end an upload, such as {@code completeMultipartUpload}; a subset of
 *     {@code steps}
 */
public record MultipartUploads(Set<String> starts, Set<String> steps, Set<String> ends) {
  /** A client without multipart uploads: every operation counts alone. */
  public static final MultipartUploads NONE = new MultipartUploads(Set.of(), Set.of(), Set.of());

  /**
   * @throws IllegalArgumentException when an end is not among the steps or a start is a step
   */
  public MultipartUploads {
    starts = Set.copyOf(starts);
    steps = Set.copyOf(steps);
    ends = Set.copyOf(ends);
    if (!steps.containsAll(ends)) {
      throw new IllegalArgumentException("multipart ends " + ends + " are not all steps " + steps);
    }
    for (String start : starts) {
      if (steps.contains(start)) {
        throw new IllegalArgumentException("multipart start " + start + " is also a step");
      }
    }
  }

  /**
   * @param operation an operation name
   * @return whether it begins an upload or is one of its steps
   */
  boolean involves(String operation) {
    return starts.contains(operation) || steps.contains(operation);
  }
}
