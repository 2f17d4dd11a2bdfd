package dev.writerfence.store;

import dev.writerfence.spi.LeaseStoreProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The backends, found by name: every {@link LeaseStoreProvider} registered in {@code
 * META-INF/services} beside the copy of core that loads this class (core registers {@code lease},
 * {@code advisory} and {@code lease-rpc}). Every mode that builds a fence from settings (the
 * process fence, the agent, the Spring Boot starter) asks here, so a backend added is one
 * registration.
 *
 * <p>Loaded once, with the class loader of {@link LeaseStoreProvider} itself: a relocated copy of
 * core (the agent's) finds its own relocated registrations and never another copy's.
 */
public final class BackendRegistry {
  /** The backend when {@code backend} is unset: the lease row. */
  public static final String DEFAULT_BACKEND = "lease";

  private static final Map<String, LeaseStoreProvider> PROVIDERS = load();

  private BackendRegistry() {}

  private static Map<String, LeaseStoreProvider> load() {
    Map<String, LeaseStoreProvider> byName = new LinkedHashMap<>();
    for (LeaseStoreProvider p :
        ServiceLoader.load(LeaseStoreProvider.class, LeaseStoreProvider.class.getClassLoader())) {
      LeaseStoreProvider earlier = byName.putIfAbsent(p.name(), p);
      if (earlier != null && earlier.getClass() != p.getClass()) {
        throw new IllegalStateException(
            "writer-fence: backend '"
                + p.name()
                + "' is registered twice, by "
                + earlier.getClass().getName()
                + " and "
                + p.getClass().getName()
                + "; remove one of the two from the class path");
      }
    }
    return Collections.unmodifiableMap(byName);
  }

  /**
   * @return the registered backends' names, in the order of registration (core's own first)
   */
  public static List<String> names() {
    return List.copyOf(PROVIDERS.keySet());
  }

  /**
   * @param name a backend's name, as {@code writer-fence.backend} gives it
   * @return its provider
   * @throws IllegalArgumentException naming the value and the registered names when none is
   *     registered under it
   */
  public static LeaseStoreProvider provider(String name) {
    LeaseStoreProvider p = name == null ? null : PROVIDERS.get(name);
    if (p == null) {
      throw new IllegalArgumentException(
          "writer-fence: backend '" + name + "' is not allowed: " + allowed());
    }
    return p;
  }

  /**
   * @param name a value of {@code writer-fence.backend}
   * @return the name, when a backend is registered under it
   * @throws IllegalArgumentException naming the value and the registered names otherwise
   */
  public static String checkName(String name) {
    return provider(name).name();
  }

  /**
   * @return the registered names as a rule: {@code lease, advisory or lease-rpc}
   */
  public static String allowed() {
    List<String> names = new ArrayList<>(PROVIDERS.keySet());
    if (names.isEmpty()) {
      return "none is registered (META-INF/services/" + LeaseStoreProvider.class.getName() + ")";
    }
    String last = names.remove(names.size() - 1);
    return names.isEmpty() ? last : String.join(", ", names) + " or " + last;
  }
}
