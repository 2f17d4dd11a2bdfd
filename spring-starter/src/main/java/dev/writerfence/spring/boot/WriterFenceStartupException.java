package dev.writerfence.spring.boot;

/**
 * A start-up failure of the starter that says what is wrong and what to do apart: Spring Boot's
 * failure analysis ({@link WriterFenceFailureAnalyzer}) prints them as its description and action;
 * the message is both, for a log without the analysis.
 */
public class WriterFenceStartupException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  /**
   * @param description what is wrong, starting with {@code writer-fence}; not {@code null}
   * @param action what to do, naming the properties to set; not {@code null}
   * @param cause the underlying failure, or {@code null}
   */
  public WriterFenceStartupException(String description, String action, Throwable cause) {
    super(description + ". " + action, cause);
    this.description = description;
    this.action = action;
  }

  /**
   * @return what is wrong, never {@code null}
   */
  public String getDescription() {
    return description;
  }

  /**
   * @return what to do, never {@code null}
   */
  public String getAction() {
    return action;
  }

  /**
   * @return the failure when the starter finds no DataSource for the fence
   */
  static WriterFenceStartupException noDataSource() {
    return new WriterFenceStartupException(
        "writer-fence needs a DataSource: the fence keeps its leases in PostgreSQL, and every"
            + " backend (writer-fence.backend: lease, advisory, lease-rpc) reaches it through a"
            + " JDBC DataSource, but the application has none (or several and none @Primary)",
        "Set spring.datasource.url=jdbc:postgresql://HOST:5432/DATABASE (with"
            + " spring.datasource.username and spring.datasource.password) for the application's"
            + " DataSource, or writer-fence.datasource.url (and .username, .password) for a pool of"
            + " the fence's own; mark one of several DataSource beans @Primary; or turn the"
            + " starter off with writer-fence.enabled=false",
        null);
  }
}
