package dev.writerfence.spring.boot3;

import dev.writerfence.spring.task.TaskHandoffContract;

/**
 * {@link TaskHandoffContract} on Spring Boot 3.5, which applies a {@code TaskDecorator} only when
 * it is the single bean of its type.
 */
class TaskHandoffOnBoot3Test extends TaskHandoffContract {
  @Override
  protected String springBootLine() {
    return "3.5";
  }

  @Override
  protected boolean appliesEveryTaskDecorator() {
    return false;
  }
}
