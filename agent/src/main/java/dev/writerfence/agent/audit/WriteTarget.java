package dev.writerfence.agent.audit;

import java.lang.reflect.Method;
import java.util.Optional;

/**
 * The bucket (or volume) and object key (or path) of one write.
 *
 * @param bucket the bucket or volume; {@code null} when unknown
 * @param key the object key or path; {@code null} when unknown
 */
public record WriteTarget(String bucket, String key) {
  /** Neither is known. */
  public static final WriteTarget UNKNOWN = new WriteTarget(null, null);

  /**
   * Reads {@code bucket()} and {@code key()} (or {@code getBucketName()}/{@code getKey()}), when
   * the object has them, by reflection: the agent cannot link against the client's classes, which
   * may live in a class loader it does not see. Also covers request types that name their target
   * {@code destinationBucket()}/{@code destinationKey()} (copies).
   *
   * @param target a request object or {@code null}
   * @return what it names; {@link #UNKNOWN} when it has neither
   */
  public static WriteTarget reflect(Object target) {
    if (target == null) {
      return UNKNOWN;
    }
    String bucket = firstText(target, "destinationBucket", "bucket", "getBucketName", "getBucket");
    String key = firstText(target, "destinationKey", "key", "getKey", "getName");
    return new WriteTarget(bucket, key);
  }

  /**
   * Reads the bucket and key through the two named no-argument methods, for clients whose names
   * differ from those {@link #reflect(Object)} tries (MinIO's {@code object()}, Azure's {@code
   * getBlobName()}...).
   *
   * @param target a request or client object, or {@code null}
   * @param bucketMethod the method that returns the bucket (or container)
   * @param keyMethod the method that returns the object key (or blob name)
   * @return what they return as text; components are {@code null} when a method is missing or
   *     returns {@code null}
   */
  public static WriteTarget reflect(Object target, String bucketMethod, String keyMethod) {
    if (target == null) {
      return UNKNOWN;
    }
    return new WriteTarget(firstText(target, bucketMethod), firstText(target, keyMethod));
  }

  private static String firstText(Object target, String... names) {
    for (String name : names) {
      try {
        Method method = target.getClass().getMethod(name);
        Object value = method.invoke(target);
        if (value instanceof Optional<?> optional) { // never "Optional[name]" in a report
          value = optional.orElse(null);
        }
        if (value != null) {
          return value.toString();
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // Not this one; the next name, or unknown.
      }
    }
    return null;
  }
}
