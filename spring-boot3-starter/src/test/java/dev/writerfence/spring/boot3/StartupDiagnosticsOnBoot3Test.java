package dev.writerfence.spring.boot3;

import dev.writerfence.spring.startup.StartupDiagnosticsContract;

/**
 * {@link StartupDiagnosticsContract} on Spring Boot 3.5: the starter's test body, run on this
 * module's dependency set (Spring Boot 3.5's BOM), where the same failure analyzer and contract
 * check must answer.
 */
class StartupDiagnosticsOnBoot3Test extends StartupDiagnosticsContract {
  @Override
  protected String springBootLine() {
    return "3.5";
  }

  @Override
  protected String dataSourceAutoConfiguration() {
    return "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";
  }
}
