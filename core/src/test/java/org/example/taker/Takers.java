package org.example.taker;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.FencedMethods;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An application outside writer-fence's packages that takes fences, each way a lease can be taken,
 * and answers what its hold says took it. Each fence is taken on a line of its own.
 */
public final class Takers {
  private Takers() {}

  /** The taker the innermost hold of this thread names. */
  static String taker(String fenceName) {
    return HeldFenceStack.find(fenceName).takenBy();
  }

  /** {@code WriterFence.call}, its body a lambda: the method that called {@code call} took it. */
  public static String viaCall(WriterFence fence, FenceRequest request) throws Exception {
    return fence.call(request, () -> taker(request.fenceName()));
  }

  /** {@code WriterFence.acquire}, released before it returns. */
  public static String viaAcquire(WriterFence fence, FenceRequest request) {
    FenceLease lease = fence.acquire(request);
    try {
      return taker(request.fenceName());
    } finally {
      fence.release(lease);
    }
  }

  /** A nested call of the same name joins the hold: the outer taker stays. */
  public static String nested(WriterFence fence, FenceRequest request) throws Exception {
    return fence.call(request, () -> fence.call(request, () -> taker(request.fenceName())));
  }

  /** The hold carried to a pool thread: that thread sees the original taker. */
  public static String carried(WriterFence fence, FenceRequest request, ExecutorService pool)
      throws Exception {
    return fence.call(
        request,
        () ->
            pool.submit(CarriedHolds.capture().wrap(() -> taker(request.fenceName())))
                .get(30, TimeUnit.SECONDS));
  }

  /** A woven call of {@link #annotated}, as every weaving mode makes it through FencedMethods. */
  public static String woven(WriterFence fence, String fenceName) throws Throwable {
    Method m = Takers.class.getMethod("annotated", String.class, int.class);
    return (String)
        FencedMethods.proceed(fence, m, new Object[] {fenceName, 1}, () -> annotated(fenceName, 1));
  }

  /** Fenced when woven; its second parameter shows how parameters are named. */
  @WriterFenced("{0}")
  public static String annotated(String fenceName, int unused) {
    return taker(fenceName);
  }
}
