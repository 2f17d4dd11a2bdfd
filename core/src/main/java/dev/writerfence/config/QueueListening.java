package dev.writerfence.config;

/**
 * The release listener's part of {@code writer-fence.queue.*} ({@link
 * WriterFenceConfiguration.Queue} extends it): whether the front of a queue is woken by a
 * notification, and where the listener connects.
 */
public class QueueListening {
  private boolean listen = true;
  private boolean listenSet; // set explicitly: a pool of one is then refused, not quietly polled
  private String listenUrl;

  /** Creates the defaults: listening on, on the fence's data source. */
  public QueueListening() {}

  /** Returns {@code queue.listen}. */
  public boolean isListen() {
    return listen;
  }

  /** Sets {@code queue.listen}. */
  public void setListen(boolean listen) {
    this.listen = listen;
    this.listenSet = true;
  }

  /** Whether {@code queue.listen} was set rather than left at its default. */
  boolean isListenSet() {
    return listenSet;
  }

  /** Returns {@code queue.listen-url}: {@code null} to listen on the fence's data source. */
  public String getListenUrl() {
    return listenUrl;
  }

  /**
   * Sets {@code queue.listen-url}, a direct {@code jdbc:postgresql:} URL for the release listener
   * alone; its role and password are {@code datasource.username} and {@code datasource.password}
   * when set, else the URL's {@code user} and {@code password} parameters.
   */
  public void setListenUrl(String listenUrl) {
    this.listenUrl = listenUrl;
  }
}
