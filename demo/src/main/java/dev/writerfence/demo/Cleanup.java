package dev.writerfence.demo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Stops what a demo run started, when the run ends or, as a shutdown hook, when the JVM is stopped
 * (Ctrl-C) mid-run. Every writer process is killed first, so that none writes on while the servers
 * go away; then the rest is closed in the reverse order it was registered: the S3 client,
 * PostgreSQL, S3Proxy.
 */
final class Cleanup implements AutoCloseable {
  private final Deque<Object> resources = new ArrayDeque<>();
  private final Thread hook = new Thread(this::interrupted, "writer-fence-demo-cleanup");
  private final List<Runnable> onInterrupt = new ArrayList<>();
  private boolean stopped;
  private volatile boolean interrupted;

  Cleanup() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * @return whether the JVM was stopped mid-run and the shutdown hook has stopped everything
   */
  boolean wasInterrupted() {
    return interrupted;
  }

  /**
   * @param resource something started, to close
   * @return the resource
   */
  synchronized <T extends AutoCloseable> T add(T resource) {
    resources.push(resource);
    return resource;
  }

  /**
   * @param process a writer process, to kill
   * @return the process
   */
  synchronized Process add(Process process) {
    resources.push(process);
    return process;
  }

  /**
   * @param action what stops something that is still starting, in its place among the resources
   */
  synchronized void onClose(AutoCloseable action) {
    resources.push(action);
  }

  /**
   * @param action runs after everything is stopped, only when the JVM is stopped (Ctrl-C) mid-run
   */
  synchronized void onInterrupt(Runnable action) {
    onInterrupt.add(action);
  }

  @Override
  public void close() {
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs, and finds everything stopped
    }
  }

  private synchronized void interrupted() {
    interrupted = true;
    stopAll();
    onInterrupt.forEach(Runnable::run);
  }

  private synchronized void stopAll() {
    if (stopped) {
      return;
    }
    stopped = true;
    for (Object r : resources) {
      if (r instanceof Process p && p.isAlive()) {
        p.destroyForcibly();
      }
    }
    while (!resources.isEmpty()) {
      Object r = resources.pop();
      try {
        if (r instanceof AutoCloseable c) {
          c.close();
        }
      } catch (Exception e) {
        // stopping: nothing more to do about it
      }
    }
  }
}
