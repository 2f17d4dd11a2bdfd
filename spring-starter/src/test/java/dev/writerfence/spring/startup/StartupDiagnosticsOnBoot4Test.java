package dev.writerfence.spring.startup;

/** {@link StartupDiagnosticsContract} on Spring Boot 4.0, this module's line. */
class StartupDiagnosticsOnBoot4Test extends StartupDiagnosticsContract {
  @Override
  protected String springBootLine() {
    return "4.0";
  }

  @Override
  protected String dataSourceAutoConfiguration() {
    return "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";
  }
}
