package dev.writerfence.samples.fencing;

/**
 * What a writer read of an object before overwriting it: the fencing token stamped on it and the
 * ETag of that version.
 *
 * @param fencingToken the stamp ({@code x-amz-meta-fencing-token}); 0 when the object is absent or
 *     carries no stamp
 * @param eTag the ETag of the version read, or {@code null} when the object is absent
 */
public record Stamp(long fencingToken, String eTag) {
  /** No object under the key. */
  public static final Stamp ABSENT = new Stamp(0, null);

  /**
   * @return whether there was no object under the key
   */
  public boolean absent() {
    return eTag == null;
  }
}
