package dev.writerfence.annotation;

/**
 * What a {@link WriterFenced} method does when the fence stays busy through its wait.
 *
 * <p>Either way the method does not run and nothing is written; only what the caller sees differs.
 */
public enum OnBusy {
  /** The caller gets {@code WriterFenceBusyException} (the default). */
  THROW,
  /**
   * The method does not run and returns at once without an exception: {@code null} for a reference
   * type, an empty {@code Optional}, or a completed {@code CompletionStage} of {@code null};
   * nothing for {@code void}. For scheduled jobs where another instance doing the work is the
   * normal case. A method returning a primitive other than {@code void} cannot skip: weaving it is
   * refused.
   */
  SKIP
}
