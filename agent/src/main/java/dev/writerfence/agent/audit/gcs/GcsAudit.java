package dev.writerfence.agent.audit.gcs;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.WriteTarget;
import java.lang.reflect.Method;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Google Cloud Storage ({@code com.google.cloud:google-cloud-storage}): the implementations of
 * {@code com.google.cloud.storage.Storage} (JSON, gRPC, and the SDK's decorators around them).
 * {@code Blob} and {@code Bucket} methods ({@code blob.delete()}, {@code bucket.create(...)}) call
 * the service and are caught there. Default-deny: {@code create}, {@code createFrom}, {@code
 * writer}, {@code delete}, {@code copy}, {@code compose}, {@code update}, {@code restore}, ACL,
 * IAM, HMAC-key and notification changes, {@code batch} and {@code blobWriteSession} all count.
 * {@code writer()} counts when the channel is opened, before any byte is written to it.
 */
public final class GcsAudit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.gcs}. */
  public static final String ID = "gcs";

  private static final String GCS = "com.google.cloud.storage.";

  /** Reads, or no storage operation at all, whose names default-deny would take for writes. */
  private static final String[] READS = {
    "testIamPermissions", "signUrl", "generateSignedPostPolicyV4", "internalObjectGet", "reader"
  };

  @Override
  public String id() {
    return ID;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("com.google.", "io.grpc.", "io.opentelemetry.");
  }

  /**
   * @param target the method's arguments, as the advice passed them
   */
  @Override
  public WriteTarget describe(Object target) {
    if (!(target instanceof Object[] args) || args.length == 0 || args[0] == null) {
      return WriteTarget.UNKNOWN;
    }
    Object first = args[0];
    if (first instanceof String bucket) {
      return new WriteTarget(bucket, args.length > 1 && args[1] instanceof String k ? k : null);
    }
    Object requestTarget = call(first, "getTarget"); // CopyRequest, ComposeRequest
    if (requestTarget != null) {
      first = requestTarget;
    }
    if (first.getClass().getSimpleName().startsWith("Bucket")) {
      return WriteTarget.reflect(first, "getName", "getNoSuchMethod");
    }
    return WriteTarget.reflect(first, "getBucket", "getName");
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.packages(List.of(GCS));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(
            nameStartsWith(GCS)
                .and(nameEndsWith("StorageImpl").or(nameEndsWith("StorageDecorator")))
                .and(not(isInterface()))
                .and(hasSuperType(named(GCS + "Storage"))))
        .transform(AuditMatchers.advice(writes(), GcsAdvice.class.getName()));
  }

  /**
   * @return the methods of the client's classes that count as writes (default-deny)
   */
  public static ElementMatcher.Junction<MethodDescription> writes() {
    return AuditMatchers.writeOperations().and(not(namedOneOf(READS)));
  }

  private static Object call(Object target, String method) {
    try {
      Method m = target.getClass().getMethod(method);
      return m.invoke(target);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
