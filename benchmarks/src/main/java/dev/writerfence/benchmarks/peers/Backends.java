package dev.writerfence.benchmarks.peers;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Opens each {@link LockBackend.Kind} the way its documentation recommends, on the same server and
 * the same connection setup ({@link BenchTarget#pool}). The tables the peers need are created by
 * the launcher ({@code Schemas}), not here.
 */
public final class Backends {
  /** TTL (lease) or lock-at-most-for (peers) of every lock taken in a benchmark. */
  public static final Duration TTL = Duration.ofSeconds(30);

  private Backends() {}

  /**
   * @param kind what to open
   * @param target where the servers are
   * @param poolSize connections the backend may use at once (threads that share it)
   * @return the opened backend
   * @throws IllegalStateException when {@code kind} is Redisson and no redis-server runs
   */
  public static LockBackend open(LockBackend.Kind kind, BenchTarget target, int poolSize) {
    return switch (kind) {
      case LEASE -> lease(target, poolSize);
      case ADVISORY -> advisory(target, poolSize);
      case SHEDLOCK -> shedLock(target, poolSize);
      case JDBC_LOCK_REGISTRY -> jdbcLockRegistry(target, poolSize);
      case RAW_FLOOR -> rawFloor(target, poolSize);
      case REDISSON -> redisson(target);
    };
  }

  private static LockBackend lease(BenchTarget target, int poolSize) {
    HikariDataSource pool = target.pool("lease", poolSize);
    WriterFence fence = WriterFence.builder(pool).releaseOnJvmShutdown(false).build();
    return fenceBackend(LockBackend.Kind.LEASE, fence, pool, null);
  }

  private static LockBackend advisory(BenchTarget target, int poolSize) {
    // As the starter does: the store's own pool, one connection more than the store may pin.
    HikariDataSource pool = target.pool("advisory", poolSize + 1);
    AdvisoryLockStore store = AdvisoryLockStore.create(pool, Math.max(2, poolSize), "writer_fence");
    WriterFence fence = WriterFence.builder(store).releaseOnJvmShutdown(false).build();
    return fenceBackend(LockBackend.Kind.ADVISORY, fence, pool, store);
  }

  private static LockBackend fenceBackend(
      LockBackend.Kind kind, WriterFence fence, HikariDataSource pool, AdvisoryLockStore store) {
    return new LockBackend() {
      @Override
      public LockBackend.Kind kind() {
        return kind;
      }

      @Override
      public boolean cycle(String name, Runnable criticalSection) {
        Optional<FenceLease> lease =
            fence.tryAcquire(FenceRequest.builder(name).holderLabel("bench").ttl(TTL).build());
        return runHeld(lease.isPresent(), criticalSection, () -> fence.release(lease.get()));
      }

      @Override
      public boolean cycleWaiting(String name, Runnable criticalSection) {
        // What application code writes: the default BusyRetryPolicy of the fence, which waits
        // in the fence's local turn queue first when another thread of it holds the name.
        FenceRequest request = FenceRequest.builder(name).holderLabel("bench").ttl(TTL).build();
        try {
          fence.run(request, criticalSection::run);
          return true;
        } catch (WriterFenceBusyException e) {
          return false;
        }
      }

      @Override
      public void close() {
        fence.close();
        if (store != null) {
          store.close();
        }
        pool.close();
      }
    };
  }

  private static LockBackend shedLock(BenchTarget target, int poolSize) {
    HikariDataSource pool = target.pool("shedlock", poolSize);
    // ShedLock's README for JdbcTemplateLockProvider: a JdbcTemplate over the DataSource, and
    // usingDbTime() so that the database clock, not each node's, decides expiry.
    JdbcTemplateLockProvider provider =
        new JdbcTemplateLockProvider(
            JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool))
                .usingDbTime()
                .build());
    return new LockBackend() {
      @Override
      public LockBackend.Kind kind() {
        return LockBackend.Kind.SHEDLOCK;
      }

      @Override
      public boolean cycle(String name, Runnable criticalSection) {
        Optional<SimpleLock> lock =
            provider.lock(new LockConfiguration(Instant.now(), name, TTL, Duration.ZERO));
        return runHeld(lock.isPresent(), criticalSection, () -> lock.get().unlock());
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }

  private static LockBackend jdbcLockRegistry(BenchTarget target, int poolSize) {
    HikariDataSource pool = target.pool("jdbcLockRegistry", poolSize);
    // Spring Integration's reference: a DefaultLockRepository on the DataSource (table INT_LOCK
    // from its schema-postgresql.sql) with a transaction manager, and a JdbcLockRegistry on it.
    DefaultLockRepository repository = new DefaultLockRepository(pool);
    repository.setTransactionManager(new DataSourceTransactionManager(pool));
    repository.afterPropertiesSet();
    repository.afterSingletonsInstantiated();
    JdbcLockRegistry registry = new JdbcLockRegistry(repository, TTL);
    return new LockBackend() {
      @Override
      public LockBackend.Kind kind() {
        return LockBackend.Kind.JDBC_LOCK_REGISTRY;
      }

      @Override
      public boolean cycle(String name, Runnable criticalSection) {
        Lock lock = registry.obtain(name);
        return runHeld(lock.tryLock(), criticalSection, lock::unlock);
      }

      @Override
      public void close() {
        repository.close();
        pool.close();
      }
    };
  }

  private static LockBackend rawFloor(BenchTarget target, int poolSize) {
    HikariDataSource pool = target.pool("rawFloor", poolSize);
    return new LockBackend() {
      @Override
      public LockBackend.Kind kind() {
        return LockBackend.Kind.RAW_FLOOR;
      }

      @Override
      public boolean cycle(String name, Runnable criticalSection) {
        // What the lease cycle does, less everything but the statements: borrow, one
        // autocommit UPDATE of one row, give back; twice.
        update(pool, name);
        criticalSection.run();
        update(pool, name);
        return true;
      }

      @Override
      public void close() {
        pool.close();
      }
    };
  }

  private static void update(HikariDataSource pool, String name) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE bench_floor SET n = n + 1 WHERE name = ?")) {
      ps.setString(1, name);
      if (ps.executeUpdate() != 1) {
        // First use of the name: its row is created once, outside the measured steady state.
        try (PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO bench_floor (name, n) VALUES (?, 1) ON CONFLICT DO NOTHING")) {
          insert.setString(1, name);
          insert.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("raw floor UPDATE failed: " + e.getMessage(), e);
    }
  }

  private static LockBackend redisson(BenchTarget target) {
    if (target.redisUrl() == null) {
      throw new IllegalStateException("no redis-server runs (-D" + BenchTarget.REDIS_URL + ")");
    }
    Config config = new Config();
    config.useSingleServer().setAddress(target.redisUrl());
    RedissonClient client = Redisson.create(config);
    return new LockBackend() {
      @Override
      public LockBackend.Kind kind() {
        return LockBackend.Kind.REDISSON;
      }

      @Override
      public boolean cycle(String name, Runnable criticalSection) {
        RLock lock = client.getLock(name);
        boolean taken;
        try {
          // tryLock with no wait and a lease time: no watchdog, like a TTL'd lease.
          taken = lock.tryLock(0, TTL.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
        return runHeld(taken, criticalSection, lock::unlock);
      }

      @Override
      public void close() {
        client.shutdown();
      }
    };
  }

  /**
   * The part of a cycle every backend shares: when the lock was taken, run the critical section and
   * release in {@code finally}.
   */
  private static boolean runHeld(boolean taken, Runnable criticalSection, Runnable release) {
    if (!taken) {
      return false;
    }
    try {
      criticalSection.run();
    } finally {
      release.run();
    }
    return true;
  }
}
