package dev.writerfence.agent.audit.lmdb;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.StoreKeys;
import dev.writerfence.agent.audit.WriteTarget;
import dev.writerfence.bootstrap.StorePaths;
import java.io.File;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * LMDB through lmdbjava ({@code org.lmdbjava:lmdbjava}), which writes through native code below the
 * JDK's file classes: the file audit never sees it. Judged at the Java API instead:
 *
 * <ul>
 *   <li>{@code Dbi}: {@code put}, {@code reserve}, {@code delete}, {@code drop};
 *   <li>{@code Cursor}: {@code put}, {@code putMultiple}, {@code reserve}, {@code delete};
 *   <li>{@code Txn.commit} of a top-level write transaction (a read-only or child transaction's
 *       commit writes nothing to the environment).
 * </ul>
 *
 * <p>Methods are listed, not default-denied: these classes are mostly reads and plumbing (cursor
 * moves, {@code get}, {@code iterate}, {@code openCursor}, {@code stat}). {@code Dbi.put(key,
 * value)} opens and commits its own transaction on the same thread: one write. {@code Env.openDbi}
 * commits a transaction of its own but is not judged (a start-up step that adds an empty database
 * at most), nor is {@code Env.copy}, which writes elsewhere, not to the env.
 *
 * <p>The bucket is the environment's path, which {@code Env} does not keep: {@code
 * Env.Builder.open} records it ({@link StorePaths}). The key is the key argument as text (printable
 * UTF-8) or short hex; a commit and a cursor's {@code delete} name no key.
 */
public final class LmdbAudit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.lmdb}. */
  public static final String ID = "lmdb";

  private static final String LMDB = "org.lmdbjava.";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of(LMDB, "jnr.");
  }

  @Override
  public WriteTarget describe(Object target) {
    return new WriteTarget(StorePaths.pathOf(StoreKeys.store(target)), StoreKeys.key(target));
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.packages(List.of(LMDB));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(named(LMDB + "Env$Builder"))
        .transform(
            AuditMatchers.advice(
                named("open").and(takesArgument(0, File.class)).and(AuditMatchers.publicInstance()),
                LmdbOpenAdvice.class.getName()))
        .type(named(LMDB + "Env"))
        .transform(
            AuditMatchers.advice(
                named("openDbi").and(AuditMatchers.publicInstance()),
                LmdbOpenDbiAdvice.class.getName()))
        .type(named(LMDB + "Dbi"))
        .transform(
            AuditMatchers.advice(
                namedOneOf("put", "reserve", "delete", "drop").and(AuditMatchers.publicInstance()),
                LmdbWriteAdvice.class.getName()))
        .type(named(LMDB + "Cursor"))
        .transform(
            AuditMatchers.advice(
                namedOneOf("put", "putMultiple", "reserve", "delete")
                    .and(AuditMatchers.publicInstance()),
                LmdbWriteAdvice.class.getName()))
        .type(named(LMDB + "Txn"))
        .transform(
            AuditMatchers.advice(
                named("commit").and(takesArguments(0)).and(AuditMatchers.publicInstance()),
                LmdbCommitAdvice.class.getName()));
  }
}
