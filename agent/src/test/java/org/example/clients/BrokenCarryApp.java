package org.example.clients;

import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Hands tasks that write a file under the audited directory to the JDK's executors and threads,
 * inside a real hold, while carrying that hold fails. The failure is injected by a hold entry of
 * this app's own, {@link BrokenEntry}, pushed above the real one: it answers whether it is valid on
 * the thread that pushed it and throws on any other, as a defect in restoring a carried hold would.
 * Nothing in a production JVM can turn this on: it takes application code that pushes a broken
 * {@code HeldFenceStack.Entry} on purpose.
 *
 * <p>Prints {@code carried wrote} (the real hold alone, carried: the task's write is fenced), then
 * {@code submit result R}, {@code execute result R} and {@code thread result R}, where {@code R} is
 * what the task returned ({@code wrote} or {@code refused}), then {@code done}. Arguments: JDBC
 * URL, fence name, the audited directory.
 */
public final class BrokenCarryApp {
  private static final long WAIT_SECONDS = 30; // a task whose run threw never completes

  private BrokenCarryApp() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[2]);
    ExecutorService pool = Executors.newFixedThreadPool(1);
    pool.submit(() -> null).get(); // the worker starts outside any hold
    Exception[] failed = new Exception[1];
    Writes.fenced(
        args[0],
        args[1],
        () -> {
          try {
            say(
                "carried "
                    + pool.submit(() -> write(dir, "carried")).get(WAIT_SECONDS, TimeUnit.SECONDS));
            BrokenEntry broken = new BrokenEntry(args[1] + "/broken");
            HeldFenceStack.push(broken);
            try {
              Future<String> submitted = pool.submit(() -> write(dir, "submit"));
              say("submit result " + submitted.get(WAIT_SECONDS, TimeUnit.SECONDS));
              CompletableFuture<String> executed = new CompletableFuture<>();
              pool.execute(() -> executed.complete(write(dir, "execute")));
              say("execute result " + executed.get(WAIT_SECONDS, TimeUnit.SECONDS));
              CompletableFuture<String> started = new CompletableFuture<>();
              Thread thread = new Thread(() -> started.complete(write(dir, "thread")));
              thread.start();
              say("thread result " + started.get(WAIT_SECONDS, TimeUnit.SECONDS));
            } finally {
              HeldFenceStack.pop(broken);
            }
          } catch (Exception e) {
            failed[0] = e;
          }
        });
    pool.shutdown();
    if (failed[0] != null) {
      throw failed[0];
    }
    Writes.done();
  }

  /** Writes one file; answers {@code wrote} or {@code refused}. */
  private static String write(Path dir, String name) {
    try {
      Files.writeString(dir.resolve(name), "x");
      return "wrote";
    } catch (Exception e) {
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof UnfencedWriteException) {
          return "refused";
        }
      }
      return "failed " + e;
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** A hold valid on the thread that pushed it, and broken on every other. */
  private static final class BrokenEntry implements HeldFenceStack.Entry {
    private final Thread owner = Thread.currentThread();
    private final String fenceName;
    private final UUID token = UUID.randomUUID();
    private final Instant acquiredAt = Instant.now();

    BrokenEntry(String fenceName) {
      this.fenceName = fenceName;
    }

    @Override
    public boolean isValid() {
      if (Thread.currentThread() != owner) {
        throw new IllegalStateException("injected: this hold cannot be carried to another thread");
      }
      return true;
    }

    @Override
    public String fenceName() {
      return fenceName;
    }

    @Override
    public Object domain() {
      return "broken";
    }

    @Override
    public String domainName() {
      return null;
    }

    @Override
    public Object lease() {
      return this;
    }

    @Override
    public String lostReason() {
      return null;
    }

    @Override
    public UUID holderToken() {
      return token;
    }

    @Override
    public String holderLabel() {
      return "broken";
    }

    @Override
    public long fencingToken() {
      return 1;
    }

    @Override
    public Instant acquiredAt() {
      return acquiredAt;
    }

    @Override
    public Instant expiresAt() {
      return acquiredAt.plus(ttl());
    }

    @Override
    public Duration ttl() {
      return Duration.ofMinutes(1);
    }
  }
}
