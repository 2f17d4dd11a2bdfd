package dev.writerfence.benchmarks.weaving;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Gives the agent's fence dispatch a fence on a no-op lease store, so the agent's row measures the
 * weaving without a database, like the other rows. The agent carries its own copy of core under a
 * relocated package; the store is a JDK proxy of that copy's {@code LeaseStore} (two reflective
 * calls per fenced call that the other rows do not make, so the row errs high), and the fence is
 * put where the agent would build its own on the first fenced call.
 */
public final class AgentNoopFence {
  /** Where the agent jar relocates core ({@code dev.writerfence}). */
  static final String SHADED = "dev.writerfence.agent.shaded.writerfence";

  static final String DISPATCH = "dev.writerfence.agent.fence.FenceDispatch";

  private AgentNoopFence() {}

  /**
   * @return whether this JVM runs with the writer-fence agent
   */
  public static boolean agentPresent() {
    try {
      Class.forName(DISPATCH, false, ClassLoader.getSystemClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /**
   * @throws ReflectiveOperationException when the agent's classes are not as expected (another
   *     agent version)
   * @throws IllegalStateException when the JVM runs without the agent
   */
  public static void install() throws ReflectiveOperationException {
    if (!agentPresent()) {
      throw new IllegalStateException("this JVM runs without -javaagent:writer-fence-agent.jar");
    }
    ClassLoader loader = ClassLoader.getSystemClassLoader();
    Class<?> storeType = Class.forName(SHADED + ".spi.LeaseStore", true, loader);
    Class<?> leaseType = Class.forName(SHADED + ".spi.StoreLease", true, loader);
    // The one grant, as NoopLeaseStore's: renews and releases without a round trip.
    Object granted =
        Proxy.newProxyInstance(
            loader,
            new Class<?>[] {leaseType},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "fencingToken" -> 1L;
                  case "acquiredAt" -> Instant.EPOCH;
                  case "expiresAt" -> Instant.MAX;
                  case "renew" -> Optional.of(Instant.MAX);
                  case "release" -> Boolean.TRUE;
                  default -> answerPlainly(proxy, method, args);
                });
    Optional<Object> grant = Optional.of(granted);
    Object store =
        Proxy.newProxyInstance(
            loader,
            new Class<?>[] {storeType},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "acquire" -> grant;
                  case "status" -> Optional.empty();
                  case "statusAll" -> List.of();
                  case "toString" -> "NoopLeaseStore(agent)";
                  default -> answerPlainly(proxy, method, args);
                });
    Class<?> fenceType = Class.forName(SHADED + ".WriterFence", true, loader);
    Object builder = fenceType.getMethod("builder", storeType).invoke(null, store);
    builder = builder.getClass().getMethod("withoutRenewal").invoke(builder);
    builder =
        builder.getClass().getMethod("releaseOnJvmShutdown", boolean.class).invoke(builder, false);
    Object fence = builder.getClass().getMethod("build").invoke(builder);
    Field field = Class.forName(DISPATCH, true, loader).getDeclaredField("fence");
    field.setAccessible(true);
    field.set(null, fence);
  }

  /**
   * What every other method answers: a default method of the SPI as it is written, and the identity
   * of the proxy for {@code equals} and {@code hashCode}.
   */
  private static Object answerPlainly(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.isDefault()) {
      return InvocationHandler.invokeDefault(proxy, method, args);
    }
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      case "toString" -> "NoopStoreLease(agent)";
      default -> throw new UnsupportedOperationException(method.getName());
    };
  }
}
