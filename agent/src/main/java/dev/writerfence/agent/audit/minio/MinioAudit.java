package dev.writerfence.agent.audit.minio;

import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.WriteTarget;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * MinIO's Java client ({@code io.minio:minio}): {@code MinioClient} and {@code MinioAsyncClient}.
 * Every storage operation takes one {@code ...Args} object; methods without one are client plumbing
 * (timeouts, tracing, endpoints). {@code MinioClient} delegates to an async client on the same
 * thread, so a call counts once. An async call is judged when it is made, on the calling thread,
 * before its request is sent.
 */
public final class MinioAudit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.minio}. */
  public static final String ID = "minio";

  /** Reads whose names default-deny would take for writes. */
  private static final String[] READS = {
    "isObjectLegalHoldEnabled", "listenBucketNotification", "bucketExists"
  };

  @Override
  public String id() {
    return ID;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("io.minio.", "okhttp3.", "okio.");
  }

  @Override
  public WriteTarget describe(Object target) {
    return WriteTarget.reflect(target, "bucket", "object");
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.packages(List.of("io.minio."));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(namedOneOf("io.minio.MinioClient", "io.minio.MinioAsyncClient"))
        .transform(AuditMatchers.advice(writes(), MinioAdvice.class.getName()));
  }

  /**
   * @return the methods of the client's classes that count as writes (default-deny)
   */
  public static ElementMatcher.Junction<MethodDescription> writes() {
    return AuditMatchers.writeOperations()
        .and(not(namedOneOf(READS)))
        .and(takesArgument(0, nameStartsWith("io.minio.").and(nameEndsWith("Args"))));
  }
}
