package dev.writerfence.benchmarks.weaving.ctw;

import dev.writerfence.annotation.WriterFenced;

/**
 * The AspectJ side of the pool run ({@code pool/PoolLoadRun}): woven at compile time by ajc, fenced
 * through the process fence ({@code -Dwriter-fence.*}), one fence per key.
 */
public class PoolWriter {
  private PoolWriter() {}

  /**
   * @param key the fence name's last part: the fence is {@code vt-load:KEY}
   * @param sectionMillis how long the section sleeps
   * @throws InterruptedException when interrupted while sleeping
   */
  @WriterFenced(value = "vt-load:{0}", holder = "bench")
  public static void write(String key, long sectionMillis) throws InterruptedException {
    Thread.sleep(sectionMillis);
  }
}
