package org.example.handoff;

import java.util.concurrent.Callable;

/**
 * The fenced methods of {@link HandOffApp}, fenced by the agent's {@code fence.methods} ({@code
 * org.example.handoff.Uploads#*=NAME}); {@link AnnotatedUploads} has the same through
 * {@code @WriterFenced}. The first argument is the fence name.
 */
public class Uploads {
  final HandOffs work;

  Uploads(HandOffs work) {
    this.work = work;
  }

  /**
   * @return what {@link HandOffs#upload} answers
   */
  public String upload(String fenceName, String kind) throws Exception {
    return work.upload(kind);
  }

  /**
   * Puts one object in a fenced call of its own: inside a task that carries the hold of the same
   * name, it joins that hold.
   *
   * @return {@code true} when the audit refused it
   */
  public boolean put(String fenceName, String key) {
    return work.put(key);
  }

  /**
   * @return what {@link HandOffApp#unrelated} answers
   */
  public String unrelated(String fenceName, HandOffApp app) throws Exception {
    return app.unrelated();
  }

  /**
   * Runs {@code inside} in the hold and returns what it answers: a task it hands off may outlive
   * the call.
   */
  public <T> T inside(String fenceName, Callable<T> inside) throws Exception {
    return inside.call();
  }
}
