package dev.writerfence.testing.weaving;

/** Implements {@link InterfaceFenced} with no annotation of its own: it runs unfenced. */
public class InterfaceFencedWriter implements InterfaceFenced {
  /** Creates the writer; a container may proxy it. */
  public InterfaceFencedWriter() {}

  @Override
  public void write(String fenceName, Runnable body) {
    body.run();
  }
}
