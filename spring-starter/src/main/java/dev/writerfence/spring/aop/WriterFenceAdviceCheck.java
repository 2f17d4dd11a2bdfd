package dev.writerfence.spring.aop;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Start-up checks of the advice, logged once all singletons exist:
 *
 * <ul>
 *   <li>every {@code @WriterFenced} method of a bean class that a proxy can never advise (private,
 *       final or static), unless the class was woven by AspectJ, which advises those too;
 *   <li>every method of a bean class whose only {@code @WriterFenced} is on an interface (on the
 *       interface method it implements, or on the interface): no weaving mode honours it there;
 *   <li>an {@code @Transactional} advisor ordered at or before the fence (the lease would be taken
 *       inside the transaction), and a Resilience4j {@code @Retry} aspect ordered at or after it (a
 *       lease would be held during its backoff).
 * </ul>
 *
 * A call through {@code this} (self-invocation) bypasses every proxy and cannot be seen here: use
 * load-time weaving for classes that fence their own calls.
 */
public final class WriterFenceAdviceCheck implements SmartInitializingSingleton {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceAdviceCheck.class);

  private static final String TRANSACTION_ADVISOR =
      "org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor";
  private static final String RETRY_ASPECT =
      "io.github.resilience4j.spring6.retry.configure.RetryAspect";

  private final ConfigurableListableBeanFactory beanFactory;
  private final int fenceOrder;
  private final List<String> warnings = new ArrayList<>();

  /**
   * @param beanFactory the application's bean factory
   * @param fenceOrder the fence advisor's order
   */
  public WriterFenceAdviceCheck(ConfigurableListableBeanFactory beanFactory, int fenceOrder) {
    this.beanFactory = beanFactory;
    this.fenceOrder = fenceOrder;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (Method method : unadvisableMethods()) {
      warn(
          "writer-fence: @WriterFenced on "
              + method.toGenericString()
              + " is never advised by a Spring proxy ("
              + Modifier.toString(
                  method.getModifiers() & (Modifier.PRIVATE | Modifier.FINAL | Modifier.STATIC))
              + "): calls run unfenced; make it a public non-final instance method called through"
              + " the bean, or weave the class with AspectJ (load-time weaving)");
    }
    for (String unhonoured : interfaceAnnotatedMethods()) {
      warn(
          "writer-fence: @WriterFenced on "
              + unhonoured
              + " is not honoured (no weaving mode reads it from an interface): calls run"
              + " unfenced; put @WriterFenced on the implementing method or on its class");
    }
    checkOrder(TRANSACTION_ADVISOR, true);
    checkOrder(RETRY_ASPECT, false);
  }

  /**
   * @return the warnings logged at start-up
   */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  private void warn(String message) {
    warnings.add(message);
    LOG.warn(message);
  }

  /**
   * The interface methods carrying {@code @WriterFenced} (or declared by an annotated interface)
   * whose implementations in bean classes carry none of their own, each as {@code interface method
   * (implemented by class method)}.
   */
  List<String> interfaceAnnotatedMethods() {
    List<String> found = new ArrayList<>();
    for (Class<?> type : beanClasses()) {
      if (type.getName().startsWith("org.springframework.") || type.isInterface()) {
        continue;
      }
      for (Class<?> api : ClassUtils.getAllInterfacesForClassAsSet(type)) {
        boolean typeFenced = api.isAnnotationPresent(WriterFenced.class);
        for (Method m : api.getDeclaredMethods()) {
          if (!Modifier.isAbstract(m.getModifiers())
              || !(typeFenced || m.isAnnotationPresent(WriterFenced.class))) {
            continue;
          }
          Method impl = ClassUtils.getMostSpecificMethod(m, type);
          if (!impl.equals(m) && FencedMethods.lookup(impl).isEmpty()) {
            found.add(m.toGenericString() + " (implemented by " + impl.toGenericString() + ")");
          }
        }
      }
    }
    return found;
  }

  /** The annotated private, final and static methods of the bean classes. */
  List<Method> unadvisableMethods() {
    List<Method> found = new ArrayList<>();
    Set<Method> seen = new LinkedHashSet<>();
    for (Class<?> type : beanClasses()) {
      if (type.getName().startsWith("org.springframework.") || wovenByAspectJ(type)) {
        continue;
      }
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        boolean typeFenced = c.isAnnotationPresent(WriterFenced.class);
        for (Method m : c.getDeclaredMethods()) {
          if (m.isSynthetic() || m.isBridge() || !seen.add(m)) {
            continue;
          }
          int mod = m.getModifiers();
          boolean fenced =
              m.isAnnotationPresent(WriterFenced.class) || (typeFenced && Modifier.isPublic(mod));
          boolean unadvisable =
              Modifier.isPrivate(mod) || Modifier.isFinal(mod) || Modifier.isStatic(mod);
          if (fenced && unadvisable) {
            found.add(m);
          }
        }
      }
    }
    return found;
  }

  private Set<Class<?>> beanClasses() {
    return BeanClasses.of(beanFactory);
  }

  /** ajc leaves {@code ajc$} members in the classes it weaves; their advice needs no proxy. */
  private static boolean wovenByAspectJ(Class<?> type) {
    try {
      for (Field f : type.getDeclaredFields()) {
        if (f.getName().startsWith("ajc$")) {
          return true;
        }
      }
      for (Method m : type.getDeclaredMethods()) {
        if (m.getName().startsWith("ajc$")) {
          return true;
        }
      }
    } catch (LinkageError e) {
      return false;
    }
    return false;
  }

  private void checkOrder(String className, boolean mustBeAfter) {
    ClassLoader loader = beanFactory.getBeanClassLoader();
    if (!ClassUtils.isPresent(className, loader)) {
      return;
    }
    Class<?> type = ClassUtils.resolveClassName(className, loader);
    for (String name : beanFactory.getBeanNamesForType(type, true, false)) {
      Object bean = beanFactory.getBean(name);
      if (!(bean instanceof Ordered ordered)) {
        continue;
      }
      int order = ordered.getOrder();
      if (mustBeAfter && order <= fenceOrder) {
        warn(
            "writer-fence: the @Transactional advisor '"
                + name
                + "' has order "
                + order
                + ", at or before the fence's "
                + fenceOrder
                + ": the lease is taken inside the transaction; leave @EnableTransactionManagement's"
                + " order at its default (Ordered.LOWEST_PRECEDENCE)");
      } else if (!mustBeAfter && order >= fenceOrder) {
        warn(
            "writer-fence: the Resilience4j @Retry aspect '"
                + name
                + "' has order "
                + order
                + ", at or after the fence's "
                + fenceOrder
                + ": a lease is held while @Retry waits; leave"
                + " resilience4j.retry.retry-aspect-order at its default");
      }
    }
  }
}
