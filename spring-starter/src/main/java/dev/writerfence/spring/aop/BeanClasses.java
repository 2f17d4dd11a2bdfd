package dev.writerfence.spring.aop;

import java.util.LinkedHashSet;
import java.util.Set;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The classes of an application's beans, as the start-up checks of {@code @WriterFenced} see them.
 */
public final class BeanClasses {
  private BeanClasses() {}

  /**
   * @param beanFactory the application's bean factory, its singletons created
   * @return the user classes of the bean definitions (the target classes of JDK proxies), without
   *     the definitions whose type cannot be told
   */
  public static Set<Class<?>> of(ConfigurableListableBeanFactory beanFactory) {
    Set<Class<?>> types = new LinkedHashSet<>();
    for (String name : beanFactory.getBeanDefinitionNames()) {
      Class<?> type;
      try {
        type = beanFactory.getType(name, false);
      } catch (RuntimeException e) {
        continue;
      }
      if (type != null && java.lang.reflect.Proxy.isProxyClass(type)) {
        Object singleton =
            beanFactory.containsSingleton(name) ? beanFactory.getSingleton(name) : null;
        type = singleton != null ? AopProxyUtils.ultimateTargetClass(singleton) : null;
      }
      if (type != null) {
        types.add(ClassUtils.getUserClass(type));
      }
    }
    return types;
  }
}
