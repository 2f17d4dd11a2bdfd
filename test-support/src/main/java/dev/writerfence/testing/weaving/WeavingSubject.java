package dev.writerfence.testing.weaving;

import dev.writerfence.WriterFence;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a weaving mode hands the expectations: its fenced writers, and the application's view of the
 * database the mode's fence uses.
 *
 * @param jdbcUrl the PostgreSQL the mode's fence uses, its contract installed in the default schema
 *     {@code writer_fence}; never {@code null}
 * @param user a role that owns that schema (the expectations read the lease rows and install a
 *     second schema); never {@code null}
 * @param applicationFence a fence the application built for its own calls ({@code tryAcquire},
 *     {@code acquire}, {@code run}) on that database and schema: the mode's own fence where the
 *     mode uses the application's (AspectJ, Spring), another one where it does not (the agent);
 *     never {@code null}
 * @param methodFenced a {@link MethodFencedWriter} whose calls reach the mode's advice (for Spring,
 *     the proxy); never {@code null}
 * @param typeFenced a {@link TypeFencedWriter} whose calls reach the mode's advice; never {@code
 *     null}
 * @param interfaceFenced an {@link InterfaceFencedWriter} whose calls reach the mode's advice;
 *     never {@code null}
 * @param reactiveFenced a {@link ReactiveFencedWriter} whose calls reach the mode's advice; never
 *     {@code null}
 * @param refusedFenced gives a {@link RefusedFencedWriter} whose calls reach the mode's advice,
 *     when the check asks for it (the agent refuses its class, so making one fails); never {@code
 *     null}
 */
public record WeavingSubject(
    String jdbcUrl,
    String user,
    WriterFence applicationFence,
    MethodFencedWriter methodFenced,
    TypeFencedWriter typeFenced,
    InterfaceFenced interfaceFenced,
    ReactiveFencedWriter reactiveFenced,
    Supplier<RefusedFencedWriter> refusedFenced) {

  /**
   * @throws NullPointerException when a component is {@code null}
   */
  public WeavingSubject {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(applicationFence, "applicationFence");
    Objects.requireNonNull(methodFenced, "methodFenced");
    Objects.requireNonNull(typeFenced, "typeFenced");
    Objects.requireNonNull(interfaceFenced, "interfaceFenced");
    Objects.requireNonNull(reactiveFenced, "reactiveFenced");
    Objects.requireNonNull(refusedFenced, "refusedFenced");
  }

  /**
   * @return a new data source object for {@link #jdbcUrl} as {@link #user}: equal to no other
   */
  public DataSource newDataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl);
    ds.setUser(user);
    return ds;
  }
}
