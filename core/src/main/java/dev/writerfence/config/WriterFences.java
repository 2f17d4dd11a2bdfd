package dev.writerfence.config;

import dev.writerfence.WriterFence;
import java.util.Properties;
import java.util.Set;

/**
 * The process-wide fence that advice without a container uses (the AspectJ aspect, the agent). Set
 * it once at start-up with {@link #setDefault}; if nothing was set, the first fenced call builds
 * one from {@code -Dwriter-fence.*} system properties, and with no {@code
 * writer-fence.datasource.url} there it fails closed.
 */
public final class WriterFences {
  private static volatile WriterFence defaultFence;

  private WriterFences() {}

  /**
   * @param fence the fence advice uses from now on; {@code null} to clear
   */
  public static void setDefault(WriterFence fence) {
    defaultFence = fence;
  }

  /**
   * @return the default fence; never {@code null}
   * @throws IllegalStateException when none was set and the system properties name no data source
   * @throws IllegalArgumentException when a system property breaks its rule
   */
  public static WriterFence getDefault() {
    WriterFence fence = defaultFence;
    if (fence != null) {
      return fence;
    }
    synchronized (WriterFences.class) {
      if (defaultFence == null) {
        Properties props = System.getProperties();
        WriterFenceSettings settings = WriterFenceSettings.fromProperties(props, agentKeys());
        if (!settings.hasDataSource()) {
          throw new IllegalStateException(
              "writer-fence: no WriterFence is configured, so no lease can be confirmed and the"
                  + " fenced method does not run; call WriterFences.setDefault(fence) at start-up"
                  + " or set -Dwriter-fence.datasource.url=jdbc:postgresql://...");
        }
        defaultFence = settings.buildFence(settings.dataSource());
      }
      return defaultFence;
    }
  }

  /** Keys other parts read from the same system properties. */
  private static Set<String> agentKeys() {
    return Set.of("fence-name", "audit.mode", "audit.report");
  }
}
