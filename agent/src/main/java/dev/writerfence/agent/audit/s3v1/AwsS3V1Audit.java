package dev.writerfence.agent.audit.s3v1;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.nameContains;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.MultipartUploads;
import dev.writerfence.agent.audit.WriteTarget;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * AWS SDK for Java v1, S3 ({@code com.amazonaws:aws-java-sdk-s3}): {@code AmazonS3Client} and its
 * subclasses in the SDK (the encryption clients), and {@code TransferManager}.
 *
 * <p>A transfer is one logical write: {@code TransferManager.upload} is judged on the calling
 * thread, and the {@code putObject} or multipart requests it then makes run on the transfer
 * manager's own threads, which carry no application frame and pass as part of it. An overload that
 * calls another ({@code putObject(String, String, File)} calling {@code
 * putObject(PutObjectRequest)}) nests on the same thread and counts once.
 */
public final class AwsS3V1Audit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.aws-s3-v1}. */
  public static final String ID = "aws-s3-v1";

  private static final String S3 = "com.amazonaws.services.s3.";

  /** Client plumbing whose names default-deny would take for writes. */
  private static final String[] PLUMBING = {
    "setEndpoint",
    "setRegion",
    "setS3ClientOptions",
    "setSignerRegionOverride",
    "setTimeOffset",
    "withTimeOffset",
    "withRegion",
    "withEndpoint",
    "addRequestHandler",
    "removeRequestHandler",
    "setConfiguration",
    "shutdownNow",
    "waiters",
    "isRequesterPaysEnabled"
  };

  /** The SDK's multipart upload (the transfer manager's): one logical write. */
  private static final MultipartUploads MULTIPART =
      new MultipartUploads(
          Set.of("initiateMultipartUpload"),
          Set.of("uploadPart", "copyPart", "completeMultipartUpload", "abortMultipartUpload"),
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
    return List.of("com.amazonaws.");
  }

  /**
   * @param target the method's arguments, as the advice passed them
   */
  @Override
  public WriteTarget describe(Object target) {
    if (!(target instanceof Object[] args) || args.length == 0) {
      return WriteTarget.UNKNOWN;
    }
    if (args[0] instanceof String bucket) {
      if (args.length >= 4 && args[2] instanceof String b && args[3] instanceof String k) {
        return new WriteTarget(b, k); // copy(sourceBucket, sourceKey, destinationBucket, key)
      }
      return new WriteTarget(bucket, args.length > 1 && args[1] instanceof String k ? k : null);
    }
    WriteTarget copy =
        WriteTarget.reflect(args[0], "getDestinationBucketName", "getDestinationKey");
    return copy.bucket() != null ? copy : WriteTarget.reflect(args[0]);
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.packages(List.of(S3));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(
            nameStartsWith(S3)
                .and(nameContains("S3"))
                .and(nameContains("Client"))
                .and(not(nameStartsWith(S3 + "model.")))
                .and(not(nameStartsWith(S3 + "internal.")))
                .and(not(isInterface()))
                .and(hasSuperType(named(S3 + "AmazonS3Client"))))
        .transform(AuditMatchers.advice(writes(), S3V1Advice.class.getName()))
        .type(named(S3 + "transfer.TransferManager"))
        .transform(AuditMatchers.advice(writes(), S3V1Advice.class.getName()));
  }

  /**
   * @return the methods of the client's classes that count as writes (default-deny)
   */
  public static ElementMatcher.Junction<MethodDescription> writes() {
    // Every storage operation takes at least the bucket or a request; plumbing with arguments is
    // named.
    return AuditMatchers.writeOperations()
        .and(not(takesArguments(0)))
        .and(not(namedOneOf(PLUMBING)));
  }
}
