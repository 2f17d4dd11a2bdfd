package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import javax.management.JMException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * The audit's report and summary: written at exit by a shutdown hook, and on demand through the
 * MBean {@code dev.writerfence:type=Audit}.
 */
final class AuditControl implements AuditControlMBean {
  /**
   * The MBean's name, {@code dev.writerfence:type=Audit}. Built at run time: the shaded jar's
   * relocation rewrites every string constant that starts with the project's package name.
   */
  static final String OBJECT_NAME = CallSites.PROJECT + ":type=Audit";

  private final AuditRecorder recorder;
  private final Optional<Path> report;

  AuditControl(AuditRecorder recorder, Optional<Path> report) {
    this.recorder = recorder;
    this.report = report;
  }

  /**
   * Registers the shutdown hook now (cheap), and the MBean with the first unfenced write, on a
   * daemon thread: creating the platform MBean server in premain would cost start-up time and would
   * pre-empt a host that configures its own MBean server builder in {@code main}.
   */
  void start() {
    Runtime.getRuntime().addShutdownHook(new Thread(this::atExit, "writer-fence-audit-report"));
    recorder.onFirstWrite(
        () -> {
          Thread jmx = new Thread(this::register, "writer-fence-audit-jmx");
          jmx.setDaemon(true);
          jmx.start();
        });
  }

  private void register() {
    try {
      ManagementFactory.getPlatformMBeanServer()
          .registerMBean(
              new StandardMBean(this, AuditControlMBean.class), new ObjectName(OBJECT_NAME));
    } catch (JMException | RuntimeException e) {
      AgentLog.once(OBJECT_NAME, "audit: no JMX control (" + OBJECT_NAME + "): " + e);
    }
  }

  private void atExit() {
    report.ifPresent(
        file -> {
          try {
            AuditReport.write(recorder, file);
          } catch (IOException | RuntimeException e) {
            AgentLog.info("audit: cannot write the report to " + file + ": " + e);
          }
        });
    AgentLog.info(
        AuditReport.summary(recorder)
            + report.map(f -> System.lineSeparator() + "  report: " + f).orElse(""));
  }

  @Override
  public String writeReport() {
    return write(
        report.orElseThrow(
            () ->
                new IllegalStateException(
                    "writer-fence.audit.report is not set; use writeReportTo(file)")));
  }

  @Override
  public String writeReportTo(String file) {
    if (file == null || file.isBlank()) {
      throw new IllegalArgumentException("file is required, got '" + file + "'");
    }
    return write(Path.of(file).toAbsolutePath());
  }

  private String write(Path file) {
    try {
      AuditReport.write(recorder, file);
      return file.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the audit report to " + file, e);
    }
  }

  @Override
  public String getSummary() {
    return AuditReport.summary(recorder);
  }

  @Override
  public long getUnfencedWrites() {
    return recorder.writes().stream().mapToLong(w -> w.count.get()).sum();
  }

  @Override
  public String getMode() {
    return recorder.mode().name().toLowerCase(Locale.ROOT);
  }
}
