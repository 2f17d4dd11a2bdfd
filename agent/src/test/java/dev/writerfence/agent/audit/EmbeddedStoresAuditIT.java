package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.example.clients.EmbeddedStoresApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LMDB (lmdbjava) and RocksDB, which write through native code the file audit cannot see, audited
 * at their Java API: {@link EmbeddedStoresApp} in its own JVM with the real agent writes both
 * stores inside a fence held in the embedded PostgreSQL, then outside it through each write method,
 * then reads them back, on the build's Java 17 and on Java 25.
 */
class EmbeddedStoresAuditIT {
  /** lmdbjava reaches into the JDK's buffers on Java 17 and later. */
  private static final List<String> ADD_OPENS =
      List.of(
          "--add-opens",
          "java.base/java.nio=ALL-UNNAMED",
          "--add-opens",
          "java.base/sun.nio.ch=ALL-UNNAMED");

  private static final Path JAVA_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

  private static final String APP = EmbeddedStoresApp.class.getName();
  private static final long MANY = EmbeddedStoresApp.MANY;

  @TempDir Path dir;
  private String lmdb;
  private String rocksdb;
  private String sst;

  @BeforeEach
  void stores() throws Exception {
    Path stores = Files.createDirectory(dir.resolve("stores"));
    lmdb = Files.createDirectory(stores.resolve("lmdb")).toString();
    rocksdb = stores.resolve("rocksdb").toString();
    sst = stores.resolve("ingest.sst").toString();
  }

  @Test
  void C36_logListsEachUnfencedStoreWriteWithTheStoresPathAndNoFencedOne() throws Exception {
    assertLogListsEachUnfencedStoreWrite(ForkedJvm.javaBinary());
  }

  @Test
  void C36_logListsEachUnfencedStoreWriteOnJava25() throws Exception {
    assertLogListsEachUnfencedStoreWrite(java25());
  }

  @Test
  void C36_enforceRefusesUnfencedStoreWritesBeforeTheStoreChanges() throws Exception {
    assertEnforceRefusesUnfencedStoreWrites(ForkedJvm.javaBinary());
  }

  @Test
  void C36_enforceRefusesUnfencedStoreWritesOnJava25() throws Exception {
    assertEnforceRefusesUnfencedStoreWrites(java25());
  }

  /** Temurin 25, where CI installs it; the test is skipped on a machine without it. */
  private static String java25() {
    assumeTrue(Files.isExecutable(JAVA_25), "Temurin 25 is not installed at " + JAVA_25);
    return JAVA_25.toString();
  }

  private void assertLogListsEachUnfencedStoreWrite(String java) throws Exception {
    ClientApp app = run(java, "log");

    assertThat(app.output())
        .as(app.errors())
        .contains("wrote lmdb/fenced", "wrote rocksdb/fenced", "wrote reads")
        .contains("wrote lmdb/put", "wrote lmdb/txn", "wrote lmdb/cursor", "wrote lmdb/delete")
        .contains("wrote rocksdb/write", "wrote rocksdb/sst", "wrote rocksdb/ingest")
        .contains("lmdb has unfenced-txn", "lmdb has unfenced-reserve", "lmdb lacks fenced")
        .contains("lmdb lacks fenced-cursor", "lmdb lacks other", "rocksdb has sst-key");
    assertThat(listedWithSites(app))
        .as(app.report().toPrettyString())
        .containsExactlyInAnyOrderElementsOf(
            concat(
                unfencedEitherMode(),
                List.of(
                    tuple("lmdb", "commit", lmdb, "null", 1L, "lmdbTxn"),
                    tuple("lmdb", "commit", lmdb, "null", 1L, "lmdbCursor"),
                    tuple("lmdb", "commit", lmdb, "null", 1L, "lmdbReserve"),
                    tuple("lmdb", "commit", lmdb, "null", 1L, "lmdbCursorDelete"),
                    tuple("lmdb", "commit", lmdb, "null", 1L, "lmdbDrop"),
                    tuple("rocksdb", "finish", sst, "null", 1L, "rocksdbSst"))));
    for (JsonNode w : app.writes()) {
      assertThat(w.get("refused").asLong()).isZero();
    }
  }

  private void assertEnforceRefusesUnfencedStoreWrites(String java) throws Exception {
    ClientApp app = run(java, "enforce");

    assertThat(app.output())
        .as(app.errors())
        .contains("wrote lmdb/fenced", "wrote rocksdb/fenced", "wrote rocksdb/fenced-range")
        .contains("wrote reads");
    for (String label :
        List.of(
            "lmdb/put",
            "lmdb/txn",
            "lmdb/cursor",
            "lmdb/delete",
            "lmdb/binary-key",
            "lmdb/reserve",
            "lmdb/cursor-delete",
            "lmdb/drop",
            "lmdb/many",
            "rocksdb/put",
            "rocksdb/write",
            "rocksdb/delete",
            "rocksdb/delete-range",
            "rocksdb/single-delete",
            "rocksdb/merge",
            "rocksdb/sst",
            "rocksdb/ingest",
            "rocksdb/many")) {
      assertThat(app.output()).as(app.errors()).contains("refused " + label);
      assertThat(app.output()).doesNotContain("wrote " + label, "failed " + label);
    }
    // Read back in the app after the refusals: the fenced writes are there, the refused are not.
    assertThat(app.output())
        .contains("lmdb has fenced", "lmdb has fenced-cursor", "lmdb has other")
        .contains("rocksdb has fenced", "rocksdb has range-b")
        .contains(
            "lmdb lacks unfenced-put",
            "lmdb lacks unfenced-txn",
            "lmdb lacks unfenced-cursor",
            "lmdb lacks unfenced-reserve",
            "lmdb lacks many-0",
            "lmdb lacks many-99")
        .contains(
            "rocksdb lacks unfenced-put",
            "rocksdb lacks unfenced-batch",
            "rocksdb lacks unfenced-merge",
            "rocksdb lacks sst-key",
            "rocksdb lacks many-0",
            "rocksdb lacks many-99");
    assertThat(listedWithSites(app))
        .as(app.report().toPrettyString())
        .containsExactlyInAnyOrderElementsOf(unfencedEitherMode());
    for (JsonNode w : app.writes()) {
      assertThat(w.get("refused").asLong()).isEqualTo(w.get("count").asLong());
    }
  }

  /**
   * The rows both modes list; log mode adds the commits and the SST finish enforce never got to.
   */
  private List<Tuple> unfencedEitherMode() {
    return List.of(
        tuple("lmdb", "put", lmdb, "unfenced-put", 1L, "lmdbPut"),
        tuple("lmdb", "put", lmdb, "unfenced-txn", 1L, "lmdbTxn"),
        tuple("lmdb", "put", lmdb, "unfenced-cursor", 1L, "lmdbCursor"),
        tuple("lmdb", "delete", lmdb, "fenced", 1L, "lmdbDelete"),
        tuple("lmdb", "put", lmdb, "0x000102ff", 1L, "lmdbBinaryKey"),
        tuple("lmdb", "reserve", lmdb, "unfenced-reserve", 1L, "lmdbReserve"),
        tuple("lmdb", "delete", lmdb, "null", 1L, "lmdbCursorDelete"),
        tuple("lmdb", "drop", lmdb, "null", 1L, "lmdbDrop"),
        tuple("lmdb", "put", lmdb, "many-0", MANY, "lmdbMany"),
        tuple("rocksdb", "put", rocksdb, "unfenced-put", 1L, "rocksdbPut"),
        tuple("rocksdb", "write", rocksdb, "null", 1L, "rocksdbWrite"),
        tuple("rocksdb", "delete", rocksdb, "fenced", 1L, "rocksdbDelete"),
        tuple("rocksdb", "deleteRange", rocksdb, "range-a", 1L, "rocksdbDeleteRange"),
        tuple("rocksdb", "singleDelete", rocksdb, "unfenced-single", 1L, "rocksdbSingleDelete"),
        tuple("rocksdb", "merge", rocksdb, "unfenced-merge", 1L, "rocksdbMerge"),
        tuple("rocksdb", "put", sst, "sst-key", 1L, "rocksdbSst"),
        tuple("rocksdb", "ingestExternalFile", rocksdb, sst, 1L, "rocksdbIngest"),
        tuple("rocksdb", "put", rocksdb, "many-0", MANY, "rocksdbMany"));
  }

  private ClientApp run(String java, String mode) throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    return ClientApp.run(
        java,
        ADD_OPENS,
        APP,
        dir.resolve(mode + ".json"),
        // The stores lie under audit.paths: the file audit must not list their native writes twice.
        List.of("audit.mode=" + mode, "audit.paths=" + dir.resolve("stores")),
        db.jdbcUrl(),
        FenceNames.random("stores"),
        lmdb,
        rocksdb,
        sst);
  }

  /** (client, operation, bucket, key, count, the app's method at the call site) of each row. */
  private static List<Tuple> listedWithSites(ClientApp app) {
    List<Tuple> rows = new ArrayList<>();
    for (JsonNode w : app.writes()) {
      String site = w.get("call_site").asText();
      assertThat(site).startsWith(APP + ".");
      String method = site.substring(APP.length() + 1, site.indexOf('('));
      rows.add(
          tuple(
              w.get("client").asText(),
              w.get("operation").asText(),
              w.get("bucket").asText(),
              w.get("key").asText(),
              w.get("count").asLong(),
              method));
    }
    return rows;
  }

  private static List<Tuple> concat(List<Tuple> first, List<Tuple> second) {
    List<Tuple> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }
}
