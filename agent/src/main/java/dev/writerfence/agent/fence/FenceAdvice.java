package dev.writerfence.agent.fence;

import java.lang.reflect.Method;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The advice inlined into fenced methods: one enter part, and an exit part per kind of return type.
 * Stateless; it only hands over to {@link FenceDispatch}, which the application's class loaders
 * reach through the system class path. An exception from the enter part (busy, unavailable, a bad
 * fence name) leaves the method before its body runs, and no exit part runs then. A call skipped
 * when busy ({@code onBusy = SKIP}) returns {@link FenceDispatch.Skipped} from the enter part: the
 * body is skipped and the exit part returns the skip's value.
 */
final class FenceAdvice {
  /** The key under which the spec of the instrumented method is registered. */
  static final String KEY = "#t.#m#d";

  private FenceAdvice() {}

  /**
   * Acquires, or joins a hold of the same fence name on this thread; skips the body of a call that
   * skips when busy.
   */
  static final class Enter {
    private Enter() {}

    @Advice.OnMethodEnter(skipOn = FenceDispatch.Skipped.class)
    static Object enter(
        @Advice.Origin(KEY) String key,
        @Advice.Origin Class<?> type,
        @Advice.AllArguments Object[] args) {
      return FenceDispatch.enter(key, type, args);
    }
  }

  /**
   * For methods returning a lazy result (a Reactor {@code Mono} or {@code Flux}, an RxJava 3 type):
   * the body cannot be deferred in place, so this enter part skips it and hands the exit part a
   * result that, at each subscription, enters the fence and runs the method again by reflection,
   * marked to pass through this advice unfenced once ({@link FenceDispatch#defer}). Kotlin {@code
   * suspend} functions take this advice too: they are entered at the call and run again at once.
   */
  static final class LazyEnter {
    private LazyEnter() {}

    @Advice.OnMethodEnter(skipOn = FenceDispatch.Skipped.class)
    static Object enter(
        @Advice.Origin(KEY) String key,
        @Advice.Origin Class<?> type,
        @Advice.Origin Method method,
        @Advice.This(optional = true) Object self,
        @Advice.AllArguments Object[] args) {
      return FenceDispatch.defer(key, type, method, self, args);
    }
  }

  /** For methods returning {@code void} or a primitive: the result needs no replacing. */
  static final class PlainExit {
    private PlainExit() {}

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object entered, @Advice.Thrown Throwable thrown) {
      FenceDispatch.exit(entered, null, thrown);
    }
  }

  /**
   * For methods returning a reference: a returned stage keeps the lease until it completes, and the
   * caller may get a future that completes after the release.
   */
  static final class ReturningExit {
    private ReturningExit() {}

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(
        @Advice.Enter Object entered,
        @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned,
        @Advice.Thrown Throwable thrown) {
      returned = FenceDispatch.exit(entered, returned, thrown);
    }
  }
}
