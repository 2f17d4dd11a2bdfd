package dev.writerfence.agent.audit;

/**
 * The audit over JMX, as {@code dev.writerfence:type=Audit}: the report on demand, without a signal
 * and without waiting for the JVM to exit.
 */
public interface AuditControlMBean {
  /**
   * Writes the JSON report to {@code writer-fence.audit.report}.
   *
   * @return the absolute path written
   * @throws IllegalStateException when {@code audit.report} is not set (use {@link #writeReportTo})
   * @throws java.io.UncheckedIOException when the file cannot be written
   */
  String writeReport();

  /**
   * Writes the JSON report to the given file.
   *
   * @param file a file path; its directory is created when missing
   * @return the absolute path written
   * @throws IllegalArgumentException when {@code file} is {@code null} or blank
   * @throws java.io.UncheckedIOException when the file cannot be written
   */
  String writeReportTo(String file);

  /**
   * @return the summary logged at exit: totals, then one line per call site
   */
  String getSummary();

  /**
   * @return the number of unfenced writes so far, all call sites together
   */
  long getUnfencedWrites();

  /**
   * @return {@code off}, {@code log} or {@code enforce}
   */
  String getMode();
}
