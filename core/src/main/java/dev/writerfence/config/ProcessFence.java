package dev.writerfence.config;

import dev.writerfence.WriterFence;
import java.util.Properties;

/**
 * The process-wide fence that advice without a container uses (the AspectJ aspect, the agent). Set
 * it once at start-up with {@link #set}; if nothing was set, the first fenced call builds one from
 * {@code -Dwriter-fence.*} system properties, and with no {@code writer-fence.datasource.url} there
 * it fails closed (ADR 19 says why it is not called {@code WriterFences}).
 */
public final class ProcessFence {
  private static volatile WriterFence defaultFence;

  private ProcessFence() {}

  /**
   * @param fence the fence advice uses from now on; {@code null} to clear
   */
  public static void set(WriterFence fence) {
    defaultFence = fence;
  }

  /**
   * @return the default fence; never {@code null}
   * @throws IllegalStateException when none was set and the system properties name no data source
   * @throws IllegalArgumentException when a system property breaks its rule
   */
  public static WriterFence get() {
    WriterFence fence = defaultFence;
    if (fence != null) {
      return fence;
    }
    synchronized (ProcessFence.class) {
      if (defaultFence == null) {
        Properties props = System.getProperties();
        WriterFenceSettings settings = WriterFenceSettings.fromProperties(props);
        if (!settings.hasDataSource()) {
          throw new IllegalStateException(
              "writer-fence: no WriterFence is configured, so no lease can be confirmed and the"
                  + " fenced method does not run; call ProcessFence.set(fence) at start-up"
                  + " or set -Dwriter-fence.datasource.url=jdbc:postgresql://...");
        }
        defaultFence = settings.buildFence(settings.dataSource());
      }
      return defaultFence;
    }
  }
}
