package dev.writerfence.testing.weaving;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import java.util.function.Supplier;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The main class {@link ForkedWeavingContract} runs in a JVM of the mode under test: builds the
 * application's fence (also the process default that the AspectJ aspect uses), plain instances of
 * the writers, and checks one expectation. Prints {@link #PASSED} and exits 0 when it is met;
 * prints the failure and exits 1 otherwise.
 */
public final class ForkedExpectation {
  /** The line printed when the expectation was met. */
  public static final String PASSED = "weaving-contract: expectation met";

  private ForkedExpectation() {}

  /** Marks a check of {@link SuspendContract} among the arguments: {@code suspend:NAME}. */
  static final String SUSPEND = "suspend:";

  /** The driver of the Kotlin writer, compiled by each module that proves suspend functions. */
  private static final String SUSPEND_DRIVER =
      "dev.writerfence.testing.weaving.kotlin.SuspendDriver";

  /**
   * @param args the {@link Expectation}'s name (or {@value #SUSPEND} and a {@link
   *     SuspendContract.Check}'s), the JDBC URL, the user
   */
  public static void main(String[] args) {
    int status = 1;
    StandardError.install();
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(args[1]);
    dataSource.setUser(args[2]);
    try (WriterFence fence = WriterFence.builder(dataSource).build()) {
      ProcessFence.set(fence);
      if (args[0].startsWith(SUSPEND)) {
        SuspendingWriter driver =
            (SuspendingWriter) Class.forName(SUSPEND_DRIVER).getConstructor().newInstance();
        SuspendContract.Check.valueOf(args[0].substring(SUSPEND.length()))
            .runOn(new SuspendChecks(driver, dataSource));
        System.out.println(PASSED);
        System.out.flush();
        System.exit(0);
      }
      WeavingSubject subject =
          new WeavingSubject(
              args[1],
              args[2],
              fence,
              new MethodFencedWriter(),
              new TypeFencedWriter(),
              new InterfaceFencedWriter(),
              new ReactiveFencedWriter(),
              new RefusedOnDemand());
      Expectation.valueOf(args[0]).checkOn(subject);
      System.out.println(PASSED);
      status = 0;
    } catch (Throwable t) {
      t.printStackTrace(System.out);
    }
    System.out.flush();
    System.exit(status);
  }

  /**
   * Makes the refused writer only when asked: a lambda would name its class in a method type that
   * the JVM resolves when the lambda is made, and the agent refuses that class.
   */
  private static final class RefusedOnDemand implements Supplier<RefusedFencedWriter> {
    @Override
    public RefusedFencedWriter get() {
      return new RefusedFencedWriter();
    }
  }
}
