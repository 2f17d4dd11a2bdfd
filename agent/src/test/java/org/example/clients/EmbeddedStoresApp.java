package org.example.clients;

import static org.example.clients.Writes.attempt;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.lmdbjava.Cursor;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.GetOp;
import org.lmdbjava.Txn;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.SstFileWriter;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Embedded store writes for the audit tests: an LMDB environment (lmdbjava) and a RocksDB database,
 * written inside a fence, then outside it through each write method (one per app method, and so per
 * call site), then read; last, each key is read back and printed as {@code lmdb has KEY} or {@code
 * lmdb lacks KEY} (and {@code rocksdb ...}). Arguments: JDBC URL, fence name, the LMDB directory,
 * the RocksDB directory, the SST file to write.
 */
public final class EmbeddedStoresApp {
  /** The LMDB keys read back at the end. */
  public static final List<String> LMDB_KEYS =
      List.of(
          "fenced",
          "fenced-cursor",
          "unfenced-put",
          "unfenced-txn",
          "unfenced-cursor",
          "unfenced-reserve",
          "many-0",
          "many-99");

  /** The RocksDB keys read back at the end. */
  public static final List<String> ROCKSDB_KEYS =
      List.of(
          "fenced",
          "range-b",
          "unfenced-put",
          "unfenced-batch",
          "unfenced-merge",
          "sst-key",
          "many-0",
          "many-99");

  /** How many puts the loop of each store makes at one call site. */
  public static final int MANY = 100;

  private final Env<ByteBuffer> env;
  private final Dbi<ByteBuffer> dbi;
  private final Dbi<ByteBuffer> other;
  private final RocksDB rocks;
  private final Options options;
  private final String sst;

  private EmbeddedStoresApp(Env<ByteBuffer> env, RocksDB rocks, Options options, String sst) {
    this.env = env;
    this.dbi = env.openDbi("data", DbiFlags.MDB_CREATE);
    this.other = env.openDbi("other", DbiFlags.MDB_CREATE);
    this.rocks = rocks;
    this.options = options;
    this.sst = sst;
  }

  public static void main(String[] args) throws Exception {
    RocksDB.loadLibrary();
    Env<ByteBuffer> env = Env.create().setMapSize(64L << 20).setMaxDbs(4).open(new File(args[2]));
    Options options =
        new Options().setCreateIfMissing(true).setMergeOperator(new StringAppendOperator());
    RocksDB rocks = RocksDB.open(options, args[3]);
    EmbeddedStoresApp app = new EmbeddedStoresApp(env, rocks, options, args[4]);
    Writes.fenced(
        args[0],
        args[1],
        () -> {
          attempt("lmdb/fenced", () -> app.dbi.put(bb("fenced"), bb("v")));
          attempt("lmdb/fenced-cursor", () -> app.dbi.put(bb("fenced-cursor"), bb("v")));
          attempt("lmdb/fenced-other", () -> app.other.put(bb("other"), bb("v")));
          attempt("rocksdb/fenced", () -> app.rocks.put(bytes("fenced"), bytes("v")));
          attempt("rocksdb/fenced-range", () -> app.rocks.put(bytes("range-b"), bytes("v")));
        });
    attempt("lmdb/put", app::lmdbPut);
    attempt("lmdb/txn", app::lmdbTxn);
    attempt("lmdb/cursor", app::lmdbCursor);
    attempt("lmdb/delete", app::lmdbDelete);
    attempt("lmdb/binary-key", app::lmdbBinaryKey);
    attempt("lmdb/reserve", app::lmdbReserve);
    attempt("lmdb/cursor-delete", app::lmdbCursorDelete);
    attempt("lmdb/drop", app::lmdbDrop);
    for (int i = 0; i < MANY; i++) {
      int n = i;
      attempt("lmdb/many", () -> app.lmdbMany(n));
    }
    attempt("rocksdb/put", app::rocksdbPut);
    attempt("rocksdb/write", app::rocksdbWrite);
    attempt("rocksdb/delete", app::rocksdbDelete);
    attempt("rocksdb/delete-range", app::rocksdbDeleteRange);
    attempt("rocksdb/single-delete", app::rocksdbSingleDelete);
    attempt("rocksdb/merge", app::rocksdbMerge);
    attempt("rocksdb/sst", app::rocksdbSst);
    attempt("rocksdb/ingest", app::rocksdbIngest);
    for (int i = 0; i < MANY; i++) {
      int n = i;
      attempt("rocksdb/many", () -> app.rocksdbMany(n));
    }
    attempt("reads", app::reads);
    app.readBack();
    rocks.close();
    options.close();
    app.dbi.close();
    app.other.close();
    env.close();
    Writes.done();
  }

  private void lmdbPut() {
    dbi.put(bb("unfenced-put"), bb("v"));
  }

  private void lmdbTxn() {
    try (Txn<ByteBuffer> txn = env.txnWrite()) {
      dbi.put(txn, bb("unfenced-txn"), bb("v"));
      txn.commit();
    }
  }

  private void lmdbCursor() {
    try (Txn<ByteBuffer> txn = env.txnWrite()) {
      Cursor<ByteBuffer> cursor = dbi.openCursor(txn);
      cursor.put(bb("unfenced-cursor"), bb("v"));
      cursor.close();
      txn.commit();
    }
  }

  private void lmdbDelete() {
    dbi.delete(bb("fenced"));
  }

  private void lmdbBinaryKey() {
    dbi.put(direct(new byte[] {0, 1, 2, (byte) 0xff}), bb("v"));
  }

  private void lmdbReserve() {
    try (Txn<ByteBuffer> txn = env.txnWrite()) {
      dbi.reserve(txn, bb("unfenced-reserve"), 1).put((byte) 'v');
      txn.commit();
    }
  }

  /** Deletes the key the fence wrote, through a cursor. */
  private void lmdbCursorDelete() {
    try (Txn<ByteBuffer> txn = env.txnWrite()) {
      Cursor<ByteBuffer> cursor = dbi.openCursor(txn);
      if (cursor.get(bb("fenced-cursor"), GetOp.MDB_SET)) {
        cursor.delete();
      }
      cursor.close();
      txn.commit();
    }
  }

  /** Empties the second database, which the fence wrote. */
  private void lmdbDrop() {
    try (Txn<ByteBuffer> txn = env.txnWrite()) {
      other.drop(txn);
      txn.commit();
    }
  }

  private void lmdbMany(int i) {
    dbi.put(bb("many-" + i), bb("v"));
  }

  private void rocksdbPut() throws Exception {
    rocks.put(bytes("unfenced-put"), bytes("v"));
  }

  private void rocksdbWrite() throws Exception {
    try (WriteBatch batch = new WriteBatch();
        WriteOptions write = new WriteOptions()) {
      batch.put(bytes("unfenced-batch"), bytes("v"));
      rocks.write(write, batch);
    }
  }

  private void rocksdbDelete() throws Exception {
    rocks.delete(bytes("fenced"));
  }

  private void rocksdbDeleteRange() throws Exception {
    rocks.deleteRange(bytes("range-a"), bytes("range-z"));
  }

  private void rocksdbSingleDelete() throws Exception {
    rocks.singleDelete(bytes("unfenced-single"));
  }

  private void rocksdbMerge() throws Exception {
    rocks.merge(bytes("unfenced-merge"), bytes("v"));
  }

  private void rocksdbSst() throws Exception {
    try (EnvOptions envOptions = new EnvOptions();
        SstFileWriter writer = new SstFileWriter(envOptions, options)) {
      writer.open(sst);
      writer.put(bytes("sst-key"), bytes("v"));
      writer.finish();
    }
  }

  private void rocksdbIngest() throws Exception {
    try (IngestExternalFileOptions ingest = new IngestExternalFileOptions()) {
      rocks.ingestExternalFile(List.of(sst), ingest);
    }
  }

  private void rocksdbMany(int i) throws Exception {
    rocks.put(bytes("many-" + i), bytes("v"));
  }

  /** Never listed. */
  private void reads() throws Exception {
    try (Txn<ByteBuffer> txn = env.txnRead()) {
      dbi.get(txn, bb("fenced"));
      try (CursorIterable<ByteBuffer> all = dbi.iterate(txn)) {
        all.forEach(kv -> kv.key());
      }
    }
    rocks.get(bytes("fenced"));
    try (RocksIterator it = rocks.newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        it.key();
      }
    }
  }

  private void readBack() throws Exception {
    try (Txn<ByteBuffer> txn = env.txnRead()) {
      for (String key : LMDB_KEYS) {
        System.out.println("lmdb " + (dbi.get(txn, bb(key)) != null ? "has " : "lacks ") + key);
      }
      System.out.println(
          "lmdb " + (other.get(txn, bb("other")) != null ? "has " : "lacks ") + "other");
    }
    for (String key : ROCKSDB_KEYS) {
      System.out.println("rocksdb " + (rocks.get(bytes(key)) != null ? "has " : "lacks ") + key);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static ByteBuffer bb(String text) {
    return direct(bytes(text));
  }

  private static ByteBuffer direct(byte[] bytes) {
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
  }
}
