package dev.writerfence.agent.audit.azure;

import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.WriteTarget;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Azure Blob Storage ({@code com.azure:azure-storage-blob}): every public client class of the
 * library ({@code BlobClient}, {@code BlockBlobClient}, {@code AppendBlobClient}, {@code
 * PageBlobClient}, the container, service, lease and batch clients, and their async variants).
 * Default-deny: upload, stage and commit block, append, delete, undelete, copy, set metadata, tags,
 * tier or headers, create, leases... all count, and so does {@code getBlobOutputStream}, whose name
 * reads like a getter. An async method counts when it is called (the {@code Mono} is assembled), on
 * the calling thread, before anything is sent. Sync clients that call their async twin nest on the
 * same thread and count once.
 */
public final class AzureBlobAudit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.azure-blob}. */
  public static final String ID = "azure-blob";

  private static final String BLOB = "com.azure.storage.blob.";

  /** Reads, or no storage operation at all, whose names default-deny would take for writes. */
  private static final String[] READS = {
    "generateSas",
    "generateUserDelegationSas",
    "generateAccountSas",
    "openInputStream",
    "openQueryInputStream",
    "openQueryInputStreamWithResponse",
    "isSnapshot",
    "openSeekableByteChannelRead",
    "query",
    "queryWithResponse",
    "findBlobsByTags"
  };

  @Override
  public String id() {
    return ID;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of("com.azure.", "reactor.");
  }

  /**
   * @param target the client the write was made through
   */
  @Override
  public WriteTarget describe(Object target) {
    WriteTarget blob = WriteTarget.reflect(target, "getContainerName", "getBlobName");
    if (blob.bucket() != null) {
      return blob;
    }
    return WriteTarget.reflect(target, "getBlobContainerName", "getNoSuchMethod");
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.packages(List.of(BLOB));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(
            nameStartsWith(BLOB)
                .and(nameEndsWith("Client").or(nameEndsWith("ClientBase")))
                .and(not(nameStartsWith(BLOB + "implementation.")))
                .and(not(isInterface())))
        .transform(AuditMatchers.advice(writes(), AzureBlobAdvice.class.getName()));
  }

  /**
   * @return the methods of the client's classes that count as writes (default-deny)
   */
  public static ElementMatcher.Junction<MethodDescription> writes() {
    return AuditMatchers.writeOperations()
        .and(not(namedOneOf(READS)))
        .or(
            isPublic()
                .and(not(isStatic()))
                .and(nameStartsWith("get"))
                .and(nameEndsWith("OutputStream")));
  }
}
