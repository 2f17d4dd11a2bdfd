package dev.writerfence.spring.boot3;

import dev.writerfence.spring.adopt.ProductionModelContract;

/**
 * {@link ProductionModelContract} on Spring Boot 3.5: the owner installs through the starter's
 * Flyway run, the application's role fences, on this module's dependency set.
 */
class ProductionModelOnBoot3Test extends ProductionModelContract {
  @Override
  protected String springBootLine() {
    return "3.5";
  }
}
