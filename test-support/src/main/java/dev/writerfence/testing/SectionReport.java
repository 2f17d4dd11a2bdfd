package dev.writerfence.testing;

import java.util.List;

/**
 * What {@link SectionChecker} found in a record of critical sections.
 *
 * @param sections how many sections were checked
 * @param handovers how often, in order of entry, a section's writer differs from the previous one's
 * @param violations every violation found, in order of entry of the section that shows it; empty
 *     when the record shows one writer at a time
 */
public record SectionReport(int sections, int handovers, List<Violation> violations) {
  /** The kinds of violation, each with the label its messages start with. */
  public enum Kind {
    /** A section entered before an earlier one had left. */
    OVERLAP("overlap"),
    /** In order of entry, a fencing token did not increase. */
    TOKEN_ORDER("token order"),
    /** A section ran without a fencing token. */
    NO_TOKEN("no token"),
    /** A section ran before its lease was granted or after it expired. */
    OUTSIDE_LEASE("lease"),
    /** A section left before it entered: the record itself is wrong. */
    MALFORMED("malformed");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /**
     * @return the label that starts each message of this kind, for example {@code overlap}
     */
    public String label() {
      return label;
    }
  }

  /**
   * One violation.
   *
   * @param kind what rule it breaks
   * @param message which sections show it
   */
  public record Violation(Kind kind, String message) {
    @Override
    public String toString() {
      return kind.label() + ": " + message;
    }
  }

  /** Copies the violations. */
  public SectionReport {
    violations = List.copyOf(violations);
  }

  /**
   * @param kind a kind of violation
   * @return how many violations of that kind were found
   */
  public int count(Kind kind) {
    return (int) violations.stream().filter(v -> v.kind() == kind).count();
  }

  /**
   * @return whether no violation was found
   */
  public boolean isClean() {
    return violations.isEmpty();
  }
}
