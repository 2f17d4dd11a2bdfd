package dev.writerfence.agent.audit.rocksdb;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.writerfence.agent.Prefilter;
import dev.writerfence.agent.audit.AuditMatchers;
import dev.writerfence.agent.audit.ClientAudit;
import dev.writerfence.agent.audit.StoreKeys;
import dev.writerfence.agent.audit.WriteTarget;
import dev.writerfence.bootstrap.StorePaths;
import java.lang.reflect.Method;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;

/**
 * RocksDB's Java binding ({@code org.rocksdb:rocksdbjni}), which writes through native code below
 * the JDK's file classes: the file audit never sees it. Judged at the Java API instead:
 *
 * <ul>
 *   <li>{@code RocksDB} (and its subclasses {@code TransactionDB}, {@code OptimisticTransactionDB},
 *       {@code TtlDB}, which inherit these methods): {@code put}, {@code write} (a {@code
 *       WriteBatch}), {@code delete}, {@code deleteRange}, {@code singleDelete}, {@code merge},
 *       {@code ingestExternalFile}, {@code deleteFilesInRanges}, {@code dropColumnFamily}, {@code
 *       dropColumnFamilies};
 *   <li>{@code SstFileWriter}: {@code put}, {@code merge}, {@code delete}, {@code finish}.
 * </ul>
 *
 * <p>Methods are listed, not default-denied: {@code RocksDB} has hundreds of reads and plumbing
 * methods. Not judged: compaction and flush (they rewrite, not change, the data), column family
 * creation, a {@code Transaction}'s own writes and commit, and a {@code WriteBatch} being filled
 * (its {@code write} is the write).
 *
 * <p>The bucket is the database's path ({@code RocksDB.getName()}), or for an {@code SstFileWriter}
 * the file it was opened on ({@link StorePaths}). The key is the key argument as text (printable
 * UTF-8) or short hex, the first file of an ingestion; a batch names no key.
 */
public final class RocksDbAudit implements ClientAudit {
  /** The client id in reports and in {@code audit.require-fence.rocksdb}. */
  public static final String ID = "rocksdb";

  private static final String ROCKSDB = "org.rocksdb.";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public List<String> libraryPackages() {
    return List.of(ROCKSDB);
  }

  @Override
  public WriteTarget describe(Object target) {
    Object store = StoreKeys.store(target);
    String bucket = StorePaths.pathOf(store);
    if (bucket == null && store != null) {
      bucket = name(store);
    }
    return new WriteTarget(bucket, StoreKeys.key(target));
  }

  @Override
  public Prefilter prefilter() {
    return Prefilter.named(List.of(ROCKSDB + "RocksDB", ROCKSDB + "SstFileWriter"));
  }

  @Override
  public AgentBuilder install(AgentBuilder builder) {
    return builder
        .type(named(ROCKSDB + "RocksDB"))
        .transform(
            AuditMatchers.advice(
                namedOneOf(
                        "put",
                        "write",
                        "delete",
                        "deleteRange",
                        "singleDelete",
                        "merge",
                        "ingestExternalFile",
                        "deleteFilesInRanges",
                        "dropColumnFamily",
                        "dropColumnFamilies")
                    .and(AuditMatchers.publicInstance()),
                RocksDbWriteAdvice.class.getName()))
        .type(named(ROCKSDB + "SstFileWriter"))
        .transform(
            AuditMatchers.advice(
                named("open").and(takesArguments(String.class)).and(AuditMatchers.publicInstance()),
                SstFileOpenAdvice.class.getName()))
        .transform(
            AuditMatchers.advice(
                namedOneOf("put", "merge", "delete", "finish").and(AuditMatchers.publicInstance()),
                RocksDbWriteAdvice.class.getName()));
  }

  /** {@code RocksDB.getName()}: the path the database was opened at. */
  private static String name(Object db) {
    try {
      Method getName = db.getClass().getMethod("getName");
      Object name = getName.invoke(db);
      return name == null ? null : name.toString();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
