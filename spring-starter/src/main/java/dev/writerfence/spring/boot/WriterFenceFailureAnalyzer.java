package dev.writerfence.spring.boot;

import java.sql.SQLException;
import java.util.Optional;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;

/**
 * Spring Boot's failure analysis of the starter's start-up failures, registered in {@code
 * META-INF/spring.factories} (the same key and package in Spring Boot 3.5 and 4.0), so that a new
 * user reads what is wrong and what to set instead of a stack trace:
 *
 * <ul>
 *   <li>a {@link WriterFenceStartupException} (no DataSource for the fence; the contract check with
 *       {@code writer-fence.schema.check=fail}): its description and action;
 *   <li>a bean of the starter ({@code writerFence…}) that failed because the database refused the
 *       connection or the login (a SQLState of class 08 or 28 in the chain of causes): the
 *       database's reason first, with the URL and user, then the properties to check.
 * </ul>
 *
 * Anything else, such as the application's own beans failing on the same database, is left to
 * Spring Boot and other analyzers.
 */
public class WriterFenceFailureAnalyzer implements FailureAnalyzer {
  private static final String OWN_BEANS = "writerFence";

  private final Environment environment;

  /**
   * @param environment the failed application's environment, or {@code null} when the failure came
   *     before there was a context (Spring Boot passes it to analyzers it loads)
   */
  public WriterFenceFailureAnalyzer(Environment environment) {
    this.environment = environment;
  }

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    Optional<WriterFenceStartupException> own = find(failure, WriterFenceStartupException.class);
    if (own.isPresent()) {
      return new FailureAnalysis(own.get().getDescription(), own.get().getAction(), own.get());
    }
    Optional<SQLException> refusal = SqlCauses.refusal(failure);
    if (refusal.isEmpty() || !failedInOwnBean(failure)) {
      return null;
    }
    String prefix = dedicated() ? "writer-fence.datasource" : "spring.datasource";
    return new FailureAnalysis(
        "writer-fence: "
            + SqlCauses.describe(refusal.get())
            + connectingTo(prefix)
            + ": the database refused the fence's connection at start-up",
        SqlCauses.whatToCheck(refusal.get(), prefix)
            + (dedicated()
                ? " (writer-fence.datasource.url gives the fence a pool of its own)"
                : " (the fence uses the application's DataSource)"),
        failure);
  }

  /** Whether the innermost bean that failed to be created is one of the starter's. */
  private static boolean failedInOwnBean(Throwable failure) {
    BeanCreationException innermost = null;
    for (Throwable t : SqlCauses.chain(failure)) {
      if (t instanceof BeanCreationException e) {
        innermost = e;
      }
    }
    return innermost != null
        && innermost.getBeanName() != null
        && innermost.getBeanName().startsWith(OWN_BEANS);
  }

  private boolean dedicated() {
    return environment != null && environment.containsProperty("writer-fence.datasource.url");
  }

  /** {@code , connecting to URL as USER}, from the properties; the URL without its parameters. */
  private String connectingTo(String prefix) {
    if (environment == null) {
      return "";
    }
    String url = environment.getProperty(prefix + ".url");
    String user = environment.getProperty(prefix + ".username");
    StringBuilder out = new StringBuilder();
    if (url != null) {
      int q = url.indexOf('?');
      out.append(", connecting to ").append(q < 0 ? url : url.substring(0, q));
    }
    if (user != null) {
      out.append(url == null ? ", connecting" : "").append(" as ").append(user);
    }
    return out.toString();
  }

  private static <T extends Throwable> Optional<T> find(Throwable failure, Class<T> type) {
    for (Throwable t : SqlCauses.chain(failure)) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
    }
    return Optional.empty();
  }
}
