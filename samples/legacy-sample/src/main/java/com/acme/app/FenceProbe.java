package com.acme.app;

import java.lang.reflect.Method;
import java.util.List;

/**
 * Looks, by reflection only, for the fence the writer-fence agent holds on this thread, so the
 * sample can stamp what it writes with the fencing token. Without the agent there is none and the
 * sample still runs: it has no writer-fence dependency.
 */
final class FenceProbe {
  private static final String STACK = "dev.writerfence.bootstrap.HeldFenceStack";

  /**
   * What the innermost held fence says.
   *
   * @param fenceName the fence name
   * @param fencingToken its fencing token
   * @param holderLabel its holder label
   * @param holderToken its holder token (the holder's secret: shown by this sample for its tests)
   */
  record Held(String fenceName, long fencingToken, String holderLabel, String holderToken) {
    static final Held NONE = new Held("-", -1, "-", "-");
  }

  private FenceProbe() {}

  static Held innermost() {
    try {
      // The agent puts the held-fence stack in the bootstrap class loader.
      Class<?> stack = Class.forName(STACK, false, null);
      List<?> held = (List<?>) stack.getMethod("held").invoke(null);
      if (held.isEmpty()) {
        return Held.NONE;
      }
      Object entry = held.get(0);
      Object lease = call(entry, "lease");
      return new Held(
          (String) call(entry, "fenceName"),
          (Long) call(lease, "fencingToken"),
          String.valueOf(call(lease, "holderLabel")),
          String.valueOf(call(lease, "holderToken")));
    } catch (ClassNotFoundException e) {
      return Held.NONE;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read the held fence: " + e, e);
    }
  }

  private static Object call(Object target, String method) throws ReflectiveOperationException {
    Method m = target.getClass().getMethod(method);
    m.setAccessible(true);
    return m.invoke(target);
  }
}
