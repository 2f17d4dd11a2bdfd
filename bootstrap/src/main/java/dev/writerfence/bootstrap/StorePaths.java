package dev.writerfence.bootstrap;

import java.io.File;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The paths of embedded stores whose Java objects do not tell them: an LMDB environment ({@code
 * org.lmdbjava.Env} keeps only a native pointer) and an SST file being written. Advice inlined
 * where the store is opened records the path; the audit reads it back as the bucket of an unfenced
 * write. Stores are held weakly, so a closed and collected store leaves nothing behind.
 *
 * <p>Stores are kept by their own {@code equals} and {@code hashCode}, which those classes do not
 * override: by identity.
 */
public final class StorePaths {
  private static final Map<Object, String> PATHS = Collections.synchronizedMap(new WeakHashMap<>());

  private StorePaths() {}

  /**
   * Records the path a store was opened at, replacing any earlier one.
   *
   * @param store the store object; {@code null} records nothing
   * @param path its path: a {@link File}, a {@link java.nio.file.Path} or text; {@code null}
   *     records nothing
   */
  public static void opened(Object store, Object path) {
    if (store == null || path == null) {
      return;
    }
    PATHS.put(store, new File(path.toString()).getAbsolutePath());
  }

  /**
   * @param store a store object
   * @return the absolute path it was opened at, or {@code null} when it was opened before the agent
   *     saw it (or is {@code null})
   */
  public static String pathOf(Object store) {
    return store == null ? null : PATHS.get(store);
  }
}
