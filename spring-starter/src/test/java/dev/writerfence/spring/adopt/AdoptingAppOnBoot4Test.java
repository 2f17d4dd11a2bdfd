package dev.writerfence.spring.adopt;

/** {@link AdoptingAppContract} on Spring Boot 4.0, this module's line. */
class AdoptingAppOnBoot4Test extends AdoptingAppContract {
  @Override
  protected String springBootLine() {
    return "4.0";
  }
}
