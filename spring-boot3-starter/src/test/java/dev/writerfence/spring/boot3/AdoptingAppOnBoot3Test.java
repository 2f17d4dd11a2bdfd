package dev.writerfence.spring.boot3;

import dev.writerfence.spring.adopt.AdoptingAppContract;

/**
 * {@link AdoptingAppContract} on Spring Boot 3.5: the starter's test body, run on this module's
 * dependency set (Spring Boot 3.5's BOM), with the Spring Boot 3 health contributor.
 */
class AdoptingAppOnBoot3Test extends AdoptingAppContract {
  @Override
  protected String springBootLine() {
    return "3.5";
  }
}
