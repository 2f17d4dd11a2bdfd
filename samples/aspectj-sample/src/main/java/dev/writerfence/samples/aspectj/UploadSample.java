package dev.writerfence.samples.aspectj;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.schema.FenceSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Several uploaders, started at the same instant, upload batches into one bucket through {@link
 * BucketUploader}; the fence lets one in at a time. Afterwards it sums up the bucket's journal; the
 * sample's test checks that journal: no two batches overlapped, and fencing tokens only grew.
 *
 * <pre>
 * java -cp ... dev.writerfence.samples.aspectj.UploadSample \
 *     'jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres' /tmp/buckets [photos [2 [10]]]
 * </pre>
 */
public final class UploadSample {
  private UploadSample() {}

  /**
   * Arguments: JDBC URL (user and password as URL parameters), buckets directory, and optionally
   * the bucket name (default {@code photos}), the number of uploaders (default 2) and of batches
   * per uploader (default 10). Installs the writer-fence schema if missing (the URL's user must be
   * allowed to create it), runs the uploaders and prints one summary line.
   *
   * @param args see above
   * @throws IllegalArgumentException on wrong arguments
   * @throws Exception when an upload or the database fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || args.length > 5) {
      throw new IllegalArgumentException(
          "usage: UploadSample <jdbc-url> <buckets-dir> [bucket] [uploaders] [batches]");
    }
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(args[0]);
    Path root = Path.of(args[1]);
    String bucket = args.length > 2 ? args[2] : "photos";
    int uploaders = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    int batches = args.length > 4 ? Integer.parseInt(args[4]) : 10;

    System.out.println(run(dataSource, root, bucket, uploaders, batches));
  }

  /**
   * Runs the uploaders and reads back the bucket's journal.
   *
   * @param dataSource the database of the fence; never {@code null}
   * @param root the buckets directory; created if missing
   * @param bucket the bucket name
   * @param uploaders concurrent uploaders, at least 1
   * @param batches batches per uploader, at least 1
   * @return what the journal shows
   * @throws SQLException when the schema cannot be installed
   * @throws IOException when the journal cannot be read
   * @throws ExecutionException when an upload failed (its cause)
   * @throws InterruptedException when interrupted while waiting for the uploaders
   */
  public static Report run(
      DataSource dataSource, Path root, String bucket, int uploaders, int batches)
      throws SQLException, IOException, ExecutionException, InterruptedException {
    FenceSchema.defaults().install(dataSource);
    ProcessFence.set(WriterFence.builder(dataSource).build());
    BucketUploader uploader = new BucketUploader(root);

    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            uploaders, r -> new Thread(r, "uploader-" + threadNumber.incrementAndGet()));
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Void>> done = new ArrayList<>();
    try {
      for (int u = 1; u <= uploaders; u++) {
        int uploaderNumber = u;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int b = 1; b <= batches; b++) {
                    uploader.upload(bucket, batch(uploaderNumber, b));
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<Void> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return Report.read(root.resolve(bucket));
  }

  private static Map<String, String> batch(int uploader, int batch) {
    Map<String, String> objects = new LinkedHashMap<>();
    for (int part = 0; part < 3; part++) {
      objects.put(
          "part-" + part, "uploader " + uploader + ", batch " + batch + ", part " + part + "\n");
    }
    return objects;
  }

  /**
   * A bucket's journal, summed up.
   *
   * @param batches completed batches ({@code end} lines)
   * @param lastToken the fencing token of the last batch, or 0 when there was none
   */
  public record Report(int batches, long lastToken) {

    /**
     * @param bucketDir a bucket directory written by {@link BucketUploader}
     * @return what its journal shows
     * @throws IOException when the journal cannot be read
     */
    public static Report read(Path bucketDir) throws IOException {
      int batches = 0;
      long last = 0;
      for (String line :
          Files.readAllLines(bucketDir.resolve(BucketUploader.JOURNAL), StandardCharsets.UTF_8)) {
        String[] f = line.split(" ");
        if (f[0].equals("end")) {
          batches++;
          last = Math.max(last, Long.parseLong(f[1]));
        }
      }
      return new Report(batches, last);
    }

    @Override
    public String toString() {
      return "batches " + batches + ", last fencing token " + lastToken;
    }
  }
}
