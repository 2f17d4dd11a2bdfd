package dev.writerfence.spring.app;

public class SinkImpl implements Sink {
  @Override
  public long sink(String fence) {
    return Writers.token(fence);
  }

  /** Not declared by Sink: not fenced. */
  public long other(String fence) {
    return Writers.token(fence);
  }
}
