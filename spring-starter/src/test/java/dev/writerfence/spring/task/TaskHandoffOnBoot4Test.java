package dev.writerfence.spring.task;

/** {@link TaskHandoffContract} on Spring Boot 4.0, this module's line. */
class TaskHandoffOnBoot4Test extends TaskHandoffContract {
  @Override
  protected String springBootLine() {
    return "4.0";
  }

  @Override
  protected boolean appliesEveryTaskDecorator() {
    return true;
  }
}
