package dev.writerfence.spring.metrics;

import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spring.aop.BeanClasses;
import java.lang.reflect.Method;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Registers, once all singletons exist, the meters of every fence name or template that a
 * {@code @WriterFenced} method of a bean spells out, tagged with the holder label its calls use: a
 * dashboard or alert on {@code writer.fence.*} finds its series before the first call, also on an
 * instance whose calls are all busy. The names a template ({@code corpus:{0}}) makes from arguments
 * count in the template's one series ({@link FenceTags}).
 */
public final class FenceMetersAtStartUp implements SmartInitializingSingleton {
  private final ConfigurableListableBeanFactory beanFactory;
  private final ObjectProvider<MicrometerFenceListener> meters;

  /**
   * @param beanFactory the application's bean factory
   * @param meters the listener whose series are registered (none: nothing is)
   */
  public FenceMetersAtStartUp(
      ConfigurableListableBeanFactory beanFactory, ObjectProvider<MicrometerFenceListener> meters) {
    this.beanFactory = beanFactory;
    this.meters = meters;
  }

  @Override
  public void afterSingletonsInstantiated() {
    MicrometerFenceListener listener = meters.getIfUnique();
    if (listener == null) {
      return;
    }
    for (Class<?> type : BeanClasses.of(beanFactory)) {
      Method[] methods;
      try {
        methods = type.getMethods();
      } catch (LinkageError e) {
        continue;
      }
      for (Method m : methods) {
        try {
          FencedMethods.lookup(m).ifPresent(f -> register(listener, f));
        } catch (IllegalArgumentException e) {
          // A bad annotation: its calls fail naming the rule; nothing to count here.
        }
      }
    }
  }

  /** A constant name's series, or a template's: its names then count in one series. */
  private static void register(MicrometerFenceListener listener, FencedMethods.FencedMethod f) {
    FenceNameTemplate template = FenceNameTemplate.parse(f.annotation().value());
    if (template.isConstant()) {
      FenceRequest r = f.request(null, BusyRetryPolicy.defaults());
      listener.register(r.fenceName(), r.holderLabel().orElse(null));
    } else {
      String label = f.annotation().holder();
      listener.register(template, label.isEmpty() ? null : HolderLabel.of(label));
    }
  }
}
