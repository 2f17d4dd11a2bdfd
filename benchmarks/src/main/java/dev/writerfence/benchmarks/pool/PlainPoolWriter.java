package dev.writerfence.benchmarks.pool;

/**
 * The agent's side of the pool run ({@link PoolLoadRun}): no annotation and woven by nothing, so in
 * a JVM started with the writer-fence agent it is fenced by {@code fence.methods} alone, with the
 * fence {@code vt-load:KEY} as the AspectJ side's.
 */
public final class PlainPoolWriter {
  private PlainPoolWriter() {}

  /**
   * @param key the fence name's last part
   * @param sectionMillis how long the section sleeps
   * @throws InterruptedException when interrupted while sleeping
   */
  public static void write(String key, long sectionMillis) throws InterruptedException {
    Thread.sleep(sectionMillis);
  }
}
