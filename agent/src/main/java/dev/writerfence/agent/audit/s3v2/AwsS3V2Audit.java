package dev.writerfence.agent.audit.s3v2;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.MultipartUploads;
import dev.writerfence.agent.audit.WriteTarget;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * AWS SDK for Java v2, S3: the sync and async clients with every wrapper the SDK ships ({@code
 * DelegatingS3Client}, the cross-region clients, the multipart and CRT async clients), and the
 * transfer manager ({@code s3-transfer-manager}).
 *
 * <p>Bytecode advice rather than the SDK's {@code ExecutionInterceptor}: an interceptor class from
 * the agent jar cannot link against the SDK when the SDK lives in a child class loader (a Spring
 * Boot fat jar), and an interceptor sees each multipart part as a request of its own. The advice
 * calls only the bootstrap {@code AuditGate}, whose per-thread nesting makes a wrapper and its
 * delegate, or a transfer and its {@code putObject}, one logical write.
 */
public final class AwsS3V2Audit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.aws-s3-v2}. */
  public static final String ID = "aws-s3-v2";

  private static final String S3 = "software.amazon.awssdk.services.s3.";
  private static final String TRANSFER = "software.amazon.awssdk.transfer.s3.";

  /** The SDK's multipart upload: its parts, copies and completion are one logical write. */
  private static final MultipartUploads MULTIPART =
      new MultipartUploads(
          Set.of("createMultipartUpload"),
          Set.of("uploadPart", "uploadPartCopy", "completeMultipartUpload", "abortMultipartUpload"),
          Set.of("completeMultipartUpload", "abortMultipartUpload"));

  @Override
  public String id() {
    return ID;
  }

  @Override
  public MultipartUploads multipart() {
    return MULTIPART;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("software.amazon.awssdk.", "software.amazon.eventstream.");
  }

  @Override
  public WriteTarget describe(Object target) {
    // Transfer-manager requests wrap the S3 request they will send.
    for (String wrapped : List.of("putObjectRequest", "copyObjectRequest")) {
      Object inner = call(target, wrapped);
      if (inner != null) {
        return WriteTarget.reflect(inner);
      }
    }
    WriteTarget direct = WriteTarget.reflect(target);
    if (direct.key() == null && direct.bucket() != null) {
      Object prefix = call(target, "s3Prefix"); // uploadDirectory: an Optional<String>
      if (prefix instanceof Optional<?> optional) {
        prefix = optional.orElse(null);
      }
      if (prefix != null) {
        return new WriteTarget(direct.bucket(), prefix.toString());
      }
    }
    return direct;
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.packages(List.of(S3, TRANSFER));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(
            nameStartsWith(S3)
                .and(nameEndsWith("Client"))
                .and(not(nameStartsWith(S3 + "model.")))
                .and(not(isInterface()))
                .and(hasSuperType(named(S3 + "S3Client").or(named(S3 + "S3AsyncClient")))))
        .transform(
            AuditMatchers.advice(
                AuditMatchers.writeOperations()
                    .and(takesArgument(0, nameStartsWith(S3 + "model."))),
                S3Advice.class.getName()))
        .type(
            nameStartsWith(TRANSFER + "internal.")
                .and(nameEndsWith("TransferManager"))
                .and(not(isInterface())))
        .transform(
            AuditMatchers.advice(
                AuditMatchers.writeOperations()
                    .and(takesArgument(0, nameStartsWith(TRANSFER + "model."))),
                S3Advice.class.getName()));
  }

  private static Object call(Object target, String method) {
    if (target == null) {
      return null;
    }
    try {
      Method m = target.getClass().getMethod(method);
      return m.invoke(target);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
