package dev.writerfence.context;

import dev.writerfence.bootstrap.CarriedHolds;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The held fences as Micrometer's context-propagation sees them: a {@link ThreadLocalAccessor}
 * under the key {@value #KEY}, registered through {@code META-INF/services}, so that whatever
 * drives context-propagation (Reactor's automatic context propagation, Spring's {@code
 * ContextPropagatingTaskDecorator}, {@code ContextExecutorService}, {@code ContextSnapshot}s of
 * your own) carries a thread's holds to the work it hands off, with no code of writer-fence. Used
 * only when the application has {@code io.micrometer:context-propagation} (an optional dependency
 * of core).
 *
 * <p>The value is a {@link CarriedHolds}: the thread's valid holds, or no value at all when it
 * holds none. Setting it puts those holds on the thread above the thread's own, for as long as the
 * parent's leases stay valid; restoring takes exactly them off again. Clearing ({@link
 * #setValue()}, what a snapshot without this key does where it clears missing values) hides
 * nothing: the thread's own holds are its own fenced calls, which must stay held. Every {@code
 * setValue} is undone by the next {@code restore} on the same thread, as context-propagation pairs
 * them; a {@code restore} with nothing set is ignored.
 */
public final class HeldFencesAccessor implements ThreadLocalAccessor<CarriedHolds> {
  /** The key of the held fences in a context snapshot or a Reactor context. */
  public static final String KEY = "writer-fence.holds";

  private static final CarriedHolds.Scope NOTHING_SET = () -> {};

  /** What each unrestored {@code setValue} of this thread put on it, latest first. */
  private static final ThreadLocal<Deque<CarriedHolds.Scope>> SET = new ThreadLocal<>();

  /** Made by context-propagation's service loading. */
  public HeldFencesAccessor() {}

  @Override
  public Object key() {
    return KEY;
  }

  /**
   * @return the thread's valid holds, or {@code null} when it holds none (nothing is captured)
   */
  @Override
  public CarriedHolds getValue() {
    CarriedHolds holds = CarriedHolds.capture();
    return holds.isEmpty() ? null : holds;
  }

  /**
   * @param value the holds to put on this thread; never {@code null}
   */
  @Override
  public void setValue(CarriedHolds value) {
    remember(value.restore());
  }

  /** Sets nothing: the thread keeps its own holds. */
  @Override
  public void setValue() {
    remember(NOTHING_SET);
  }

  /**
   * Takes off what the latest {@code setValue} of this thread put on it.
   *
   * @param previousValue what the thread had before; its own holds, which stayed
   */
  @Override
  public void restore(CarriedHolds previousValue) {
    undoLatest();
  }

  /** Takes off what the latest {@code setValue} of this thread put on it. */
  @Override
  public void restore() {
    undoLatest();
  }

  private static void remember(CarriedHolds.Scope scope) {
    Deque<CarriedHolds.Scope> set = SET.get();
    if (set == null) {
      set = new ArrayDeque<>();
      SET.set(set);
    }
    set.push(scope);
  }

  private static void undoLatest() {
    Deque<CarriedHolds.Scope> set = SET.get();
    if (set == null) {
      return;
    }
    CarriedHolds.Scope latest = set.pop();
    if (set.isEmpty()) {
      SET.remove();
    }
    latest.close();
  }
}
