package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Closes the fence when the application context closes (SIGTERM included), before any DataSource
 * closes: {@link WriterFence#close()} releases every lease the fence still holds, stops its renewal
 * and refuses later acquires. A fenced call still running then finds its lease released and does
 * not release it again; a release that fails is one warning per lease from the core, and the TTL
 * frees that lease. When the fence runs on the advisory-lock backend, its {@link AdvisoryLockStore}
 * is closed next (any connection still pinned is closed, so the server frees its lock), still
 * before any DataSource closes.
 *
 * <p>Order: this bean depends on the fence (the one injected), so Spring destroys it first, and it
 * registers itself as a dependent of every {@link DataSource} and {@link WriterFenceDataSource}
 * bean of its bean factory, so Spring destroys it before any of them, also when the fence is the
 * application's own bean and Spring knows of no link between it and the DataSource it uses. The
 * {@code close()} that Spring infers for the fence bean (it is {@link AutoCloseable}), whenever it
 * runs, finds the fence closed already and does nothing.
 */
public final class WriterFenceShutdown
    implements DisposableBean, InitializingBean, BeanFactoryAware, BeanNameAware {
  private final WriterFence fence;
  private BeanFactory beanFactory;
  private String beanName;

  /**
   * @param fence the fence to close
   */
  public WriterFenceShutdown(WriterFence fence) {
    this.fence = fence;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void setBeanName(String name) {
    this.beanName = name;
  }

  /** Makes every DataSource bean wait for this bean's {@link #destroy()}. */
  @Override
  public void afterPropertiesSet() {
    if (!(beanFactory instanceof ConfigurableListableBeanFactory factory) || beanName == null) {
      return;
    }
    List<String> closedAfter = new ArrayList<>();
    closedAfter.addAll(List.of(factory.getBeanNamesForType(DataSource.class, true, false)));
    closedAfter.addAll(
        List.of(factory.getBeanNamesForType(WriterFenceDataSource.class, true, false)));
    for (String name : closedAfter) {
      if (!name.equals(beanName)) {
        factory.registerDependentBean(name, beanName);
      }
    }
  }

  @Override
  public void destroy() {
    WriterFenceProcessDefault.clearIfSame(fence);
    fence.close();
    if (FencedCalls.store(fence) instanceof AdvisoryLockStore store) {
      store.close();
    }
  }
}
