package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentSettings;
import dev.writerfence.agent.Prefilter;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * One audited storage client (AWS SDK v2 S3, AWS SDK v1 S3, Google Cloud Storage, file writes...):
 * a registered unit carrying its id, its matchers and what it alone knows (how to read a target,
 * its multipart uploads). Register it in the agent jar's service file of this interface, under
 * {@code META-INF/services} ({@link ClientAudits#all()} finds it there), and add its id to the
 * settings catalog's {@code AUDIT_CLIENTS}, which Spring and the process fence check {@code
 * audit.require-fence.<id>} against without the agent; the agent refuses to start when the two
 * differ.
 *
 * <p>How to write one:
 *
 * <ol>
 *   <li><b>Types</b>: match by exact class name or name prefix first ({@code named(...)}, {@code
 *       nameStartsWith(...)}), and only then, if at all, by hierarchy; exclude interfaces and
 *       abstract classes whose methods are only defaults. Gate the whole instrumentation on a cheap
 *       class-name check (a type-name test on the class loader) so a host without the library pays
 *       nothing.
 *   <li><b>Methods</b>: {@link AuditMatchers#writeOperations()} (default-deny: every public
 *       instance method that is not a read and not client plumbing counts as a write), narrowed as
 *       the client needs (for example: first parameter is the SDK's request type).
 *   <li><b>Advice</b>: a small stateless class, named by its class name ({@link
 *       AuditMatchers#advice}), that calls only {@code dev.writerfence.bootstrap.AuditGate} and JDK
 *       types, so it links from any class loader (a Spring Boot fat jar included):
 *       <pre>{@code
 * @Advice.OnMethodEnter
 * static void enter(@Advice.Origin("#m") String operation, @Advice.Argument(0) Object request) {
 *   AuditGate.enter("my-client", operation, request);   // or enter(id, op, bucketText, keyText)
 * }
 * @Advice.OnMethodExit(onThrowable = Throwable.class)
 * static void exit() {
 *   AuditGate.exit();
 * }
 * }</pre>
 *   <li><b>Bucket and key</b>: pass the request object (or whatever names the target) as {@code
 *       target}; the agent reads it with {@link #describe} only when the write is unfenced, so a
 *       fenced write costs no reflection.
 * </ol>
 */
public interface ClientAudit {
  /**
   * @return the client id used in reports, in {@code audit.require-fence.<id>} and as the first
   *     argument of {@code AuditGate.enter}, for example {@code aws-s3-v2}; lower case, digits and
   *     dashes
   */
  String id();

  /**
   * @return the package name prefixes of the client library (with a trailing dot), whose stack
   *     frames are skipped when the call site of a write is searched, for example {@code
   *     software.amazon.awssdk.}
   */
  List<String> libraryPackages();

  /**
   * @return which of this client's operations form one logical multipart write; {@link
   *     MultipartUploads#NONE} (the default) when it has none
   */
  default MultipartUploads multipart() {
    return MultipartUploads.NONE;
  }

  /**
   * Reads the bucket and key of an unfenced write from what the advice passed.
   *
   * @param target the {@code target} the advice passed to {@code AuditGate.enter}; may be {@code
   *     null}
   * @return the bucket and key; components are {@code null} when unknown
   */
  default WriteTarget describe(Object target) {
    return WriteTarget.reflect(target);
  }

  /**
   * Reads this client's own settings (for example {@code audit.paths}) before {@link #install};
   * most clients have none. Runs in premain, after the bootstrap classes are in place.
   *
   * @param settings the agent's settings
   * @throws dev.writerfence.agent.AgentConfigurationException when a setting of this client is bad
   */
  default void configure(AgentSettings settings) {}

  /**
   * Which classes {@link #install}'s type matchers could match, judged by the agent before Byte
   * Buddy loads (see {@link Prefilter}): Byte Buddy is built only when one of them loads. Runs
   * after {@link #configure}. The default passes the {@link #libraryPackages()}; narrow it to the
   * instrumented packages when those are broad (a {@code reactor.} or {@code com.google.} class
   * should not cost a host without the client Byte Buddy's start-up).
   *
   * @return the classes this client might instrument; not {@code null}
   */
  default Prefilter prefilter() {
    return Prefilter.packages(libraryPackages());
  }

  /**
   * Adds this client's type and method matchers and advice. Runs when Byte Buddy is built (on the
   * first class a prefilter passes, or in premain): matchers and advice names only.
   *
   * @param builder the agent's builder
   * @return the builder with this client's transformations
   */
  AgentBuilder install(AgentBuilder builder);
}
