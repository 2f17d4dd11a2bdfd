package dev.writerfence.testing.weaving;

import dev.writerfence.annotation.WriterFenced;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * A writer whose fenced method returns a result no lease can be held for: a {@code Future} that is
 * not a {@code CompletionStage} says nothing when its work ends. Every mode refuses it loudly,
 * naming the method and the type: at its first call (AspectJ, Spring), or when the class loads (the
 * agent refuses the class).
 */
public class RefusedFencedWriter {
  /** Creates the writer; a container may proxy it. */
  public RefusedFencedWriter() {}

  /**
   * @param fenceName the fence name
   * @param body what would run inside the method
   * @return the body's task, run already
   */
  @WriterFenced(value = "{0}", holder = MethodFencedWriter.HOLDER)
  public Future<String> submit(String fenceName, Runnable body) {
    FutureTask<String> task = new FutureTask<>(body, "ran");
    task.run();
    return task;
  }
}
