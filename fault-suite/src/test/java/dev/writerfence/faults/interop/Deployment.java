package dev.writerfence.faults.interop;

import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.LeaseRpcCompatibility;
import dev.writerfence.testing.EmbeddedDatabase;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Which side of the lease-RPC pair the legs call, each a database of the embedded server of its
 * own: {@link #EXISTING}, the deployment's own table and functions as its team runs them (the
 * fixture {@code lease-rpc/existing-deployment.sql}), where Java joins through {@code
 * backend=lease-rpc}; {@link #REPOINTED}, the same function names over writer-fence's contract
 * through the optional compatibility migration, where Java uses the lease backend.
 */
enum Deployment {
  EXISTING("lease_rpc_existing"),
  REPOINTED("lease_rpc_repointed");

  /** The role every leg, Java's included, connects as; its password is its name. */
  static final String ROLE = "lease_rpc_app";

  /** The row a caller that passes no fence name gets, on both sides. */
  static final String ROW = "id138_corpus_writer_fence";

  /** The Java writers' TTL. */
  static final Duration JAVA_TTL = Duration.ofSeconds(60);

  private static boolean ready;

  final String database;

  Deployment(String database) {
    this.database = database;
  }

  /** Both databases, made once per JVM. */
  static synchronized void ready() throws Exception {
    if (ready) {
      return;
    }
    EmbeddedDatabase pg = createRole();
    for (Deployment d : values()) {
      pg.execute("DROP DATABASE IF EXISTS " + d.database, "CREATE DATABASE " + d.database);
    }
    try (InputStream in =
            Deployment.class.getResourceAsStream("/lease-rpc/existing-deployment.sql");
        Connection c = EXISTING.owner().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${app_role}", ROLE));
    }
    FenceSchema schema = FenceSchema.defaults().grantTo(ROLE);
    schema.install(REPOINTED.owner());
    new LeaseRpcCompatibility(schema, ROW).install(REPOINTED.owner());
    ready = true;
  }

  /**
   * Creates {@link #ROLE} on the embedded server unless it is there.
   *
   * @return the embedded server
   */
  static EmbeddedDatabase createRole() {
    EmbeddedDatabase pg = EmbeddedDatabase.get();
    pg.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '"
            + ROLE
            + "') THEN CREATE ROLE "
            + ROLE
            + " LOGIN PASSWORD '"
            + ROLE
            + "'; END IF; END $$");
    return pg;
  }

  /** The database as the legs reach it. */
  Database db() {
    EmbeddedDatabase pg = EmbeddedDatabase.get();
    return new Database(database, pg.port(), ROLE, ROLE, pg.dataSource(database, ROLE, ROLE));
  }

  /** The superuser's connections, which own everything here. */
  DataSource owner() {
    return EmbeddedDatabase.get().dataSource(database, "postgres", null);
  }

  /** A Java writer of this deployment: on the RPC pair, or on writer-fence's lease row. */
  WriterFence javaFence() {
    DataSource ds = db().dataSource();
    if (this == EXISTING) {
      Properties p = new Properties();
      p.setProperty("writer-fence.backend", "lease-rpc");
      p.setProperty("writer-fence.ttl", JAVA_TTL.toSeconds() + "s");
      return WriterFenceSettings.fromProperties(p).buildFence(ds);
    }
    return WriterFence.builder(ds).defaultTtl(JAVA_TTL).build();
  }
}
