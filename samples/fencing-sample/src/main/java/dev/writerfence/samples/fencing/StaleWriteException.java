package dev.writerfence.samples.fencing;

/** A write refused because the object carries, or just got, a newer fencing token. */
public final class StaleWriteException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  StaleWriteException(String bucket, String key, long token, String why) {
    super("refused: " + bucket + "/" + key + " under fencing token " + token + ": " + why);
  }
}
