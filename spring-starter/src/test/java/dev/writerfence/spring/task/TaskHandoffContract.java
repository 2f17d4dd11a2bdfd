package dev.writerfence.spring.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.spring.boot.HoldCarryingTaskDecorator;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceTaskAutoConfiguration;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Case C33 in a Spring Boot application: Spring Boot's task executor ({@code @Async}) and task
 * scheduler run the tasks a fenced method hands them inside its hold (its lease is current there,
 * and a fenced method of the same name joins it), a task still running after the fenced method
 * returned is outside it, and an application's own {@code TaskDecorator} keeps working. Written
 * against API that Spring Boot 3.5 and 4.0 share; each line's module runs it in a subclass.
 */
public abstract class TaskHandoffContract {
  private static final long WAIT_SECONDS = 30;

  /**
   * @return the Spring Boot line the subclass runs on, e.g. {@code 3.5}
   */
  protected abstract String springBootLine();

  /**
   * @return whether that line applies every {@code TaskDecorator} bean (Spring Boot 4) rather than
   *     only a single one (3.5)
   */
  protected abstract boolean appliesEveryTaskDecorator();

  private final String name = FenceNames.random("c33");
  private final ContractCalls sql =
      new ContractCalls(EmbeddedDatabase.get().dataSource(), "writer_fence");

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                AopAutoConfiguration.class,
                TaskExecutionAutoConfiguration.class,
                TaskSchedulingAutoConfiguration.class,
                WriterFenceAutoConfiguration.class,
                WriterFenceTaskAutoConfiguration.class))
        .withBean(DataSource.class, () -> EmbeddedDatabase.get().dataSource())
        .withPropertyValues("writer-fence.retry.max-wait=1s")
        .withUserConfiguration(HandOffApp.class);
  }

  /** What a task saw: the current lease's fencing token (-1: none), a joined call's, a mark. */
  public record Seen(long current, long joined, boolean marked) {}

  /** A task still running, handed back by a fenced method that has returned. */
  public record Pending(CompletableFuture<Seen> seen) {}

  /** A decorator of the application's own, which marks the tasks it decorated. */
  static final ThreadLocal<Boolean> MARK = new ThreadLocal<>();

  /** The application: a fenced parent, an {@code @Async} worker, a fenced child. */
  @Configuration(proxyBeanMethods = false)
  @EnableAsync
  @EnableScheduling
  public static class HandOffApp {
    @Bean
    Child child() {
      return new Child();
    }

    @Bean
    Worker worker(Child child) {
      return new Worker(child);
    }

    @Bean
    Parent parent(Worker worker, TaskScheduler scheduler) {
      return new Parent(worker, scheduler);
    }
  }

  /** A fenced method that the worker's tasks call: inside the parent's hold it joins it. */
  public static class Child {
    @WriterFenced(value = "{0}", holder = "child")
    public long write(String fence) {
      return WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L);
    }
  }

  /** Runs on Spring Boot's task executor. */
  public static class Worker {
    private final Child child;

    Worker(Child child) {
      this.child = child;
    }

    /** Public: a proxy of a class in another class loader's package advises public methods only. */
    public Seen look(String fence) {
      return new Seen(
          WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L),
          child.write(fence),
          Boolean.TRUE.equals(MARK.get()));
    }

    @Async
    public CompletableFuture<Seen> now(String fence) {
      return CompletableFuture.completedFuture(look(fence));
    }

    @Async
    public CompletableFuture<Seen> after(String fence, CountDownLatch parentEnded)
        throws InterruptedException {
      boolean inside = WriterFence.current(fence).isPresent();
      assertThat(parentEnded.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      long current = WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L);
      return CompletableFuture.completedFuture(new Seen(current, inside ? 1 : 0, false));
    }
  }

  /** The fenced caller. */
  public static class Parent {
    private final Worker worker;
    private final TaskScheduler scheduler;

    Parent(Worker worker, TaskScheduler scheduler) {
      this.worker = worker;
      this.scheduler = scheduler;
    }

    /** The parent's token, then what the {@code @Async} task and the scheduled task saw. */
    @WriterFenced(value = "{0}", holder = "parent")
    public Object[] handOff(String fence) throws Exception {
      long own = WriterFence.current(fence).orElseThrow().fencingToken();
      Seen async = worker.now(fence).get(WAIT_SECONDS, TimeUnit.SECONDS);
      CompletableFuture<Seen> scheduled = new CompletableFuture<>();
      ScheduledFuture<?> task =
          scheduler.schedule(
              () -> {
                try {
                  scheduled.complete(worker.look(fence));
                } catch (RuntimeException e) {
                  scheduled.completeExceptionally(e);
                }
              },
              Instant.now());
      Seen onScheduler = scheduled.get(WAIT_SECONDS, TimeUnit.SECONDS);
      task.cancel(false);
      return new Object[] {own, async, onScheduler};
    }

    @WriterFenced(value = "{0}", holder = "parent")
    public Pending handOffAndReturn(String fence, CountDownLatch parentEnded) throws Exception {
      return new Pending(worker.after(fence, parentEnded));
    }
  }

  private void assertInsideTheHold(Object[] seen, boolean marked) throws Exception {
    long parentToken = (Long) seen[0];
    for (int i = 1; i < seen.length; i++) {
      Seen s = (Seen) seen[i];
      String how = i == 1 ? "@Async task" : "scheduled task";
      assertThat(s.current()).as(how + ": the parent's lease").isEqualTo(parentToken);
      assertThat(s.joined()).as(how + ": a fenced method there joins it").isEqualTo(parentToken);
      assertThat(s.marked()).as(how + ": the application's decorator").isEqualTo(marked);
    }
    assertThat(sql.fencingToken(name)).as("no second acquire").isEqualTo(parentToken);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void C33_anAsyncMethodAndAScheduledTaskCalledFromAFencedMethodSeeItsLeaseAndJoinIt() {
    assertThat(SpringBootVersion.getVersion()).startsWith(springBootLine() + ".");
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WriterFenceTaskAutoConfiguration.DECORATOR_BEAN))
                  .isInstanceOf(ContextPropagatingTaskDecorator.class);
              assertInsideTheHold(context.getBean(Parent.class).handOff(name), false);
            });
  }

  @Test
  void C33_anAsyncTaskStillRunningAfterTheFencedMethodReturnedIsOutsideTheHold() {
    runner()
        .run(
            context -> {
              CountDownLatch parentEnded = new CountDownLatch(1);
              Pending pending = context.getBean(Parent.class).handOffAndReturn(name, parentEnded);
              assertThat(sql.state(name)).as("the fenced method has released").isEqualTo("free");
              parentEnded.countDown();
              Seen seen = pending.seen().get(WAIT_SECONDS, TimeUnit.SECONDS);
              assertThat(seen.current()).as("the lease after the parent ended").isEqualTo(-1L);
            });
  }

  @Test
  void withoutContextPropagationTheStartersOwnDecoratorCarriesTheHolds() {
    runner()
        .withClassLoader(new FilteredClassLoader("io.micrometer.context"))
        .run(
            context -> {
              assertThat(context.getBean(WriterFenceTaskAutoConfiguration.DECORATOR_BEAN))
                  .isInstanceOf(HoldCarryingTaskDecorator.class);
              assertInsideTheHold(context.getBean(Parent.class).handOff(name), false);
            });
  }

  @Test
  void theApplicationsOwnTaskDecoratorStillApplies() {
    TaskDecorator marking =
        task ->
            () -> {
              MARK.set(true);
              try {
                task.run();
              } finally {
                MARK.remove();
              }
            };
    runner()
        .withBean("applicationTaskDecorator", TaskDecorator.class, () -> marking)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              if (appliesEveryTaskDecorator()) {
                assertThat(context).hasBean(WriterFenceTaskAutoConfiguration.DECORATOR_BEAN);
                assertInsideTheHold(context.getBean(Parent.class).handOff(name), true);
              } else {
                // One decorator only: the application's, untouched; holds do not travel.
                assertThat(context)
                    .doesNotHaveBean(WriterFenceTaskAutoConfiguration.DECORATOR_BEAN);
                Seen async =
                    context.getBean(Worker.class).now(name).get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(async.marked()).isTrue();
              }
            });
  }

  @Test
  void carryHoldsOffAddsNoDecorator() {
    runner()
        .withPropertyValues("writer-fence.task.carry-holds=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(WriterFenceTaskAutoConfiguration.DECORATOR_BEAN);
            });
  }
}
