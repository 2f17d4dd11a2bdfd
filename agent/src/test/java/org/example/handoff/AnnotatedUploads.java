package org.example.handoff;

import dev.writerfence.annotation.WriterFenced;
import java.util.concurrent.Callable;

/** {@link Uploads} fenced by {@code @WriterFenced}, which only the agent weaves here. */
public class AnnotatedUploads extends Uploads {
  AnnotatedUploads(HandOffs work) {
    super(work);
  }

  @Override
  @WriterFenced(value = "{0}", holder = "handoff")
  public String upload(String fenceName, String kind) throws Exception {
    return work.upload(kind);
  }

  @Override
  @WriterFenced(value = "{0}", holder = "handoff")
  public boolean put(String fenceName, String key) {
    return work.put(key);
  }

  @Override
  @WriterFenced(value = "{0}", holder = "handoff")
  public String unrelated(String fenceName, HandOffApp app) throws Exception {
    return app.unrelated();
  }

  @Override
  @WriterFenced(value = "{0}", holder = "handoff")
  public <T> T inside(String fenceName, Callable<T> inside) throws Exception {
    return inside.call();
  }
}
