package dev.writerfence.agent.audit;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.not;

import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * Matchers and advice wiring shared by the client instrumentations (see {@link ClientAudit}).
 *
 * <p>What counts as a write is decided by default-deny: every public instance method of a storage
 * client counts, unless its name says it reads ({@link #READ_PREFIXES}) or it is client plumbing
 * ({@link #PLUMBING}). An operation an SDK adds later is therefore audited without a change here.
 */
public final class AuditMatchers {
  /**
   * Name prefixes of operations that only read storage: {@code get*}, {@code head*}, {@code list*},
   * {@code select*}, and their equivalents in the covered clients ({@code download*} of transfer
   * managers, {@code read*}, {@code exists}, {@code doesObjectExist}...).
   */
  public static final List<String> READ_PREFIXES =
      List.of(
          "get",
          "head",
          "list",
          "select",
          "download",
          "resumeDownload",
          "read",
          "exists",
          "does",
          "stat",
          "presign",
          "generatePresigned");

  /** Methods of a client object that are no storage operation at all. */
  public static final Set<String> PLUMBING =
      Set.of(
          "close",
          "shutdown",
          "serviceName",
          "serviceClientConfiguration",
          "utilities",
          "waiter",
          "delegate",
          "toString",
          "hashCode",
          "equals",
          "finalize");

  /** {@link #isRead} as one regular expression, so matching needs no custom matcher class. */
  private static final String READ_OR_PLUMBING =
      "(" + String.join("|", READ_PREFIXES) + ")([^a-z].*)?|" + String.join("|", PLUMBING);

  private AuditMatchers() {}

  /**
   * @param operation a method name
   * @return {@code true} when default-deny lets it pass as a read or as plumbing
   */
  public static boolean isRead(String operation) {
    return operation.matches(READ_OR_PLUMBING);
  }

  /**
   * @return the methods that count as writes: public, not static, not abstract, not a constructor,
   *     bridge or synthetic method, not a read and not plumbing ({@link #isRead})
   */
  public static ElementMatcher.Junction<MethodDescription> writeOperations() {
    return isPublic()
        .and(not(isStatic()))
        .and(not(isAbstract()))
        .and(not(isConstructor()))
        .and(not(isBridge()))
        .and(not(isSynthetic()))
        .and((ElementMatcher<MethodDescription>) m -> !isRead(m.getInternalName()));
  }

  /**
   * @return public instance methods, for clients whose writes are listed by name rather than
   *     default-denied (the embedded stores)
   */
  public static ElementMatcher.Junction<MethodDescription> publicInstance() {
    return isPublic().and(not(isStatic()));
  }

  /**
   * @param methods the methods to advise
   * @param adviceClassName the advice class, by name, in the agent jar; it must call only {@code
   *     dev.writerfence.bootstrap.AuditGate} and JDK types
   * @return a transformer that inlines that advice into the matched methods
   */
  public static AgentBuilder.Transformer advice(
      ElementMatcher<? super MethodDescription> methods, String adviceClassName) {
    return new AgentBuilder.Transformer.ForAdvice()
        .include(AuditMatchers.class.getClassLoader())
        .advice(methods, adviceClassName);
  }
}
