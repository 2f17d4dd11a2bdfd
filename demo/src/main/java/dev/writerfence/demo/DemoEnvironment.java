package dev.writerfence.demo;

import dev.writerfence.cli.DatabaseOptions;
import dev.writerfence.schema.FenceSchema;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The servers a demo run writes through: PostgreSQL with the SQL contract installed (embedded on
 * 127.0.0.1, or the server {@code --jdbc-url} names) and S3Proxy in memory with the bucket created.
 * It stops nothing itself: each server is handed to the run's {@link Cleanup} as it starts, so that
 * a failure part-way, or Ctrl-C, still stops what did start.
 */
final class DemoEnvironment {
  /** The bucket every writer writes to. */
  static final String BUCKET = "corpus";

  /**
   * The bucket the legacy writer writes to: not {@link #BUCKET}, whose every object the checks
   * require to carry a fencing token.
   */
  static final String LEGACY_BUCKET = "legacy-exports";

  private final DemoDatabase database;
  private final String databaseName;
  private final String schema;
  private final DemoStorage storage;
  private final S3Client s3;

  private DemoEnvironment(
      DemoDatabase database, String databaseName, String schema, DemoStorage storage, S3Client s3) {
    this.database = database;
    this.databaseName = databaseName;
    this.schema = schema;
    this.storage = storage;
    this.s3 = s3;
  }

  /**
   * Starts S3Proxy on another thread while PostgreSQL starts (or is reached) on this one, then
   * installs the SQL contract and creates the bucket, reporting each server as it is ready.
   *
   * @param db where the lease lives: no URL for the embedded server
   * @param maxConnections the embedded server's {@code max_connections}
   * @param folder the run folder, for the embedded server's log
   * @param cleanup stops each server when the run ends
   * @param progress told when each server is ready
   * @return the running servers
   * @throws Exception when a server does not start or the SQL contract cannot be installed
   */
  static DemoEnvironment start(
      DatabaseOptions db,
      int maxConnections,
      RunFolder folder,
      Cleanup cleanup,
      ProgressReporter progress)
      throws Exception {
    Stopwatch startup = Stopwatch.start();
    CompletableFuture<DemoStorage> storageStart =
        CompletableFuture.supplyAsync(DemoEnvironment::startStorage);
    // Registered before it is up: if PostgreSQL fails first, S3Proxy is stopped once it is.
    cleanup.onClose(() -> storageStart.thenAccept(DemoEnvironment::closeQuietly));
    DemoDatabase database =
        cleanup.add(
            db.jdbcUrl() == null
                ? DemoDatabase.embedded(folder.databaseLog(), 0, maxConnections)
                : DemoDatabase.external(db.jdbcUrl(), db.user(), db.password()));
    FenceSchema.defaults().schema(db.schema()).install(database.dataSource());
    String databaseName = database.describe();
    progress.databaseReady(databaseName, db.schema(), startup.seconds());

    DemoStorage storage = joined(storageStart);
    S3Client s3 =
        cleanup.add(
            S3Clients.create(storage.endpoint(), DemoStorage.ACCESS_KEY, DemoStorage.SECRET_KEY));
    s3.createBucket(b -> b.bucket(BUCKET));
    s3.createBucket(b -> b.bucket(LEGACY_BUCKET));
    progress.storageReady(storage.endpoint(), BUCKET, startup.seconds());
    return new DemoEnvironment(database, databaseName, db.schema(), storage, s3);
  }

  /**
   * @return the PostgreSQL server
   */
  DemoDatabase database() {
    return database;
  }

  /**
   * @return for example {@code embedded PostgreSQL 17.6 on 127.0.0.1:5432}
   */
  String databaseName() {
    return databaseName;
  }

  /**
   * @return the schema the SQL contract is installed in
   */
  String schema() {
    return schema;
  }

  /**
   * @return S3Proxy's {@code http://127.0.0.1:<port>}
   */
  URI storageEndpoint() {
    return storage.endpoint();
  }

  /**
   * @return a client of S3Proxy with the demo's keys
   */
  S3Client s3() {
    return s3;
  }

  private static DemoStorage startStorage() {
    try {
      return DemoStorage.start();
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  /** Waits for the server and gives back the exception it failed with, not the wrapper. */
  private static DemoStorage joined(CompletableFuture<DemoStorage> start) throws Exception {
    try {
      return start.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception e) {
      // stopping: nothing more to do about it
    }
  }
}
