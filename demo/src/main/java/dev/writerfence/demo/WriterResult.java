package dev.writerfence.demo;

import java.util.List;

/**
 * One writer process as the demo saw it after the run: its summary, its record and its exit.
 *
 * @param writer the holder label
 * @param pid the process id
 * @param exitCode the process's exit status, or {@code null} when it had to be killed
 * @param summary what it counted, or {@code null} when it wrote no summary
 * @param sections its critical sections
 */
record WriterResult(
    String writer,
    long pid,
    Integer exitCode,
    WriterSummary summary,
    List<SectionRecord> sections) {

  long acquisitions() {
    return sections.size();
  }

  long busy() {
    return summary == null ? 0 : summary.busy();
  }

  long retries() {
    return summary == null ? 0 : summary.retries();
  }

  long unavailable() {
    return summary == null ? 0 : summary.unavailable();
  }

  long errors() {
    return summary == null ? 0 : summary.errors();
  }

  /**
   * @return how its queued waits learnt of a release ({@link WriterSummary#handOver()}), or {@code
   *     null} when it did not say
   */
  String handOver() {
    return summary == null ? null : summary.handOver();
  }

  int threads() {
    return summary == null ? 0 : summary.threads();
  }

  long objects() {
    return sections.stream().mapToLong(s -> s.keys().size()).sum();
  }

  long totalWaitUs() {
    return sections.stream().mapToLong(SectionRecord::waitUs).sum();
  }

  long maxWaitUs() {
    return sections.stream().mapToLong(SectionRecord::waitUs).max().orElse(0);
  }

  double meanWaitMs() {
    return sections.isEmpty() ? 0 : totalWaitUs() / 1000.0 / sections.size();
  }

  /**
   * @return why this writer failed, or {@code null} when it ran to the end
   */
  String failure() {
    if (exitCode == null) {
      return "did not finish in time and was stopped";
    }
    if (exitCode != 0) {
      return "exited with status " + exitCode;
    }
    if (summary == null) {
      return "wrote no summary";
    }
    return null;
  }
}
