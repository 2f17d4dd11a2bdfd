package dev.writerfence.config;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.internal.weaving.WeavingCheck;
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
   * Sets the process fence, after the start-up weaving check ({@link WeavingCheck}, once a JVM has
   * passed it): with {@code weaving.check=fail} (the default, from the system property {@code
   * writer-fence.weaving.check}) a {@code @WriterFenced} method the AspectJ aspect would not reach
   * refuses the fence, so no annotated method runs unfenced; {@code warn} logs the gaps instead.
   *
   * @param fence the fence advice uses from now on; {@code null} to clear (no check)
   * @throws IllegalStateException when the weaving check fails; the previous fence stays
   * @throws IllegalArgumentException when {@code writer-fence.weaving.check} is not {@code fail},
   *     {@code warn} or {@code off}
   */
  public static void set(WriterFence fence) {
    if (fence != null) {
      checkWeaving();
    }
    defaultFence = fence;
  }

  /**
   * Runs the start-up weaving check ({@link WeavingCheck}) now, as {@link #set} does, on the
   * thread's context class loader. For applications that configure the process fence by {@code
   * -Dwriter-fence.datasource.url} and never call {@link #set}: the first fenced call runs the
   * check too, but when the aspect is missing no call ever reaches writer-fence, so only this call,
   * first in {@code main}, can refuse to start. Once a JVM has passed (or warned), it returns at
   * once.
   *
   * @throws IllegalStateException when the check fails ({@code weaving.check=fail}, the default),
   *     naming every gap
   * @throws IllegalArgumentException when {@code writer-fence.weaving.check} is not {@code fail},
   *     {@code warn} or {@code off}
   */
  public static void checkWeaving() {
    String mode =
        SettingsCatalog.WEAVING_CHECK.parse(
            System.getProperty(
                SettingsCatalog.WEAVING_CHECK.property(),
                SettingsCatalog.WEAVING_CHECK.defaultValue().orElseThrow()));
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    WeavingCheck.atStartup(context != null ? context : ProcessFence.class.getClassLoader(), mode);
  }

  /**
   * @return the default fence; never {@code null}
   * @throws IllegalStateException when none was set and the system properties name no data source,
   *     or when the weaving check, run before the fence is built from them, fails
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
        // The route without set: the check runs at the first fenced call instead, and a gap
        // fails this call (the fenced method does not run) and every later one.
        checkWeaving();
        defaultFence = settings.buildFence(settings.dataSource());
      }
      return defaultFence;
    }
  }
}
