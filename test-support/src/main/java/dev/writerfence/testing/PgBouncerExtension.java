package dev.writerfence.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link PgBouncer} in front of the embedded database for a whole test class, started before
 * the class's own {@code @BeforeAll} methods and stopped after the class. Without {@code pgbouncer}
 * on the PATH each test is skipped with the reason (failed when {@code CI=true}). Register it on a
 * static field:
 *
 * <pre>{@code
 * @RegisterExtension static final PgBouncerExtension BOUNCER = new PgBouncerExtension("transaction", 1);
 * }</pre>
 */
public final class PgBouncerExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
  private final String poolMode;
  private final int serverConnections;
  private PgBouncer bouncer;

  /**
   * @param poolMode {@code session}, {@code transaction} or {@code statement}
   * @param serverConnections server connections per user and database
   */
  public PgBouncerExtension(String poolMode, int serverConnections) {
    this.poolMode = poolMode;
    this.serverConnections = serverConnections;
  }

  /**
   * @return whether {@code pgbouncer} is on the PATH, so that {@link #get()} will answer
   */
  public static boolean installed() {
    return PgBouncer.binary().isPresent();
  }

  /**
   * @return the running PgBouncer
   * @throws IllegalStateException when it is not running ({@code pgbouncer} is not installed, or
   *     the class has not started)
   */
  public PgBouncer get() {
    if (bouncer == null) {
      throw new IllegalStateException("PgBouncer is not running");
    }
    return bouncer;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (installed()) {
      bouncer = PgBouncer.start(EmbeddedDatabase.get(), poolMode, serverConnections);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    PgBouncer.requireOrSkip(); // per test, so each one is reported as skipped, with the reason
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (bouncer != null) {
      bouncer.close();
      bouncer = null;
    }
  }
}
