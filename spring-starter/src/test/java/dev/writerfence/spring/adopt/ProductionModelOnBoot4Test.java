package dev.writerfence.spring.adopt;

/** {@link ProductionModelContract} on Spring Boot 4.0, this module's line. */
class ProductionModelOnBoot4Test extends ProductionModelContract {
  @Override
  protected String springBootLine() {
    return "4.0";
  }
}
