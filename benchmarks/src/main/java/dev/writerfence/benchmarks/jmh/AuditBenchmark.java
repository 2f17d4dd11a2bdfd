package dev.writerfence.benchmarks.jmh;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.benchmarks.weaving.NoopLeaseStore;
import dev.writerfence.bootstrap.FileWriteGate;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedCalls;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The cost the agent's audit advice adds to a storage call, on the JDK's own file classes (which
 * the agent instruments when {@code audit.paths} is set): the same methods run in a fork without
 * the agent and in one with {@code -javaagent} and {@code audit.mode=log}, {@code
 * audit.paths=DIR/audited}; the difference per method is the advice's cost. No network, no
 * database: a no-op lease store grants the fence.
 *
 * <p>A third fork runs the methods that are not refused there ({@link #ENFORCE_METHODS}) with
 * {@code audit.mode=enforce}, which compares a path that matches no audited root as text again by
 * its real path (its nearest existing ancestor resolved per write): {@code outside} and {@code
 * gateOutside} pay that resolution, {@code fencedWrite} and {@code gateFencedWrite} match as text.
 * The unfenced writes are not run there: enforce mode refuses them.
 *
 * <ul>
 *   <li>{@code outside}: {@code FileOutputStream} open and close outside {@code audit.paths}:
 *       advised, not audited (the gate's prefix compare).
 *   <li>{@code fencedWrite}: the same under {@code audit.paths} while this thread holds a fence:
 *       judged fenced, nothing reported.
 *   <li>{@code unfencedWrite}: the same with no fence: reported once for its call site, after which
 *       every call walks the stack to find that call site and counts it.
 *   <li>{@code fileWrite4k}: the cheapest real write the audit guards, a 4 kB file written (open,
 *       write 4,096 bytes, close) under {@code audit.paths} with no fence: in the agent's fork an
 *       unfenced write whose call site is already reported, in the other the write alone.
 *   <li>{@code s3Put}: the other one, a 4 kB object PUT through the AWS SDK v2 {@code S3Client} to
 *       S3Proxy on 127.0.0.1 (in-memory store, started in the fork), with no fence, likewise.
 * </ul>
 *
 * <p>A file open costs microseconds of system calls, whose spread between two forks is wider than
 * the advice itself; so the {@code gate...} methods also call what the inlined advice calls ({@link
 * FileWriteGate}) directly, with the same arguments, and nothing else: {@code gateRead} as {@code
 * RandomAccessFile(f, "r")} under {@code audit.paths} would (not a write: the gate returns on the
 * open mode), {@code gateOutside}, {@code gateFencedWrite} and {@code gateUnfencedWrite} as the
 * file rows above. Without the agent the gate has no {@code audit.paths} and returns at once; in
 * the agent's fork the bootstrap class loader's copy, configured by the agent, answers.
 *
 * <p>{@value #DIR} names the directory (the launcher makes it and passes it to both forks); without
 * it a temporary one is made.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AuditBenchmark {
  /** System property: the directory whose {@code audited} subdirectory is {@code audit.paths}. */
  public static final String DIR = "bench.audit.dir";

  /**
   * The methods an {@code audit.mode=enforce} fork runs: those it does not refuse (no unfenced
   * write under {@code audit.paths}).
   */
  public static final List<String> ENFORCE_METHODS =
      List.of("outside", "fencedWrite", "gateRead", "gateOutside", "gateFencedWrite");

  /** {@code RandomAccessFile}'s internal read-only open mode, as its advice passes it. */
  private static final int READ_ONLY = 1;

  /** Bytes written by {@link #fileWrite4k()} and put by {@link #s3Put(S3Target)}. */
  static final int PAYLOAD_BYTES = 4096;

  private final byte[] payload = new byte[PAYLOAD_BYTES];
  private File readable;
  private File audited;
  private File outside;
  private File audited4k;

  /**
   * Makes {@code audited/} and {@code outside/} under {@code root} with the files the benchmark
   * uses; the launcher calls it before the forks, so that nothing the agent's fork does in its
   * set-up is an audited write.
   *
   * @param root the directory; made when absent
   * @return {@code root/audited}, the directory to pass as {@code audit.paths}
   * @throws IOException when the directory cannot be written
   */
  public static Path prepare(Path root) throws IOException {
    Path in = Files.createDirectories(root.resolve("audited"));
    Files.createDirectories(root.resolve("outside"));
    Files.write(in.resolve("read"), new byte[] {1});
    return in;
  }

  /**
   * Finds (or, without {@value #DIR}, makes) the directory and its files.
   *
   * @throws IOException when the directory cannot be written
   */
  @Setup(Level.Trial)
  public void open() throws IOException {
    String dir = System.getProperty(DIR);
    Path root = dir == null ? Files.createTempDirectory("audit-bench") : Path.of(dir);
    if (dir == null) {
      prepare(root);
    }
    audited = root.resolve("audited").resolve("written").toFile();
    readable = root.resolve("audited").resolve("read").toFile();
    outside = root.resolve("outside").resolve("written").toFile();
    audited4k = root.resolve("audited").resolve("written-4k").toFile();
    Arrays.fill(payload, (byte) 'w');
  }

  /**
   * @throws IOException when the file cannot be opened
   */
  @Benchmark
  public void outside() throws IOException {
    new FileOutputStream(outside).close();
  }

  /**
   * @param fence the fence held on this thread for the whole iteration
   * @throws IOException when the file cannot be opened
   */
  @Benchmark
  public void fencedWrite(HeldFence fence) throws IOException {
    new FileOutputStream(audited).close();
  }

  /**
   * @throws IOException when the file cannot be opened
   */
  @Benchmark
  public void unfencedWrite() throws IOException {
    new FileOutputStream(audited).close();
  }

  /**
   * @throws IOException when the file cannot be written
   */
  @Benchmark
  public void fileWrite4k() throws IOException {
    try (FileOutputStream out = new FileOutputStream(audited4k)) {
      out.write(payload);
    }
  }

  /**
   * @param s3 the client and S3Proxy
   * @return the object's ETag
   */
  @Benchmark
  public String s3Put(S3Target s3) {
    return s3.client
        .putObject(b -> b.bucket(S3Target.BUCKET).key("written-4k"), RequestBody.fromBytes(payload))
        .eTag();
  }

  /**
   * @return whether the gate was entered (never: a read-only open)
   */
  @Benchmark
  public boolean gateRead() {
    boolean entered =
        FileWriteGate.enterRandomAccess("RandomAccessFile", readable.getPath(), READ_ONLY);
    FileWriteGate.exit(entered);
    return entered;
  }

  /**
   * @return whether the gate was entered (never: outside {@code audit.paths})
   */
  @Benchmark
  public boolean gateOutside() {
    boolean entered = FileWriteGate.enterPath("FileOutputStream", outside.getPath());
    FileWriteGate.exit(entered);
    return entered;
  }

  /**
   * @param fence the fence held on this thread for the whole iteration
   * @return whether the gate was entered (with the agent: yes, and judged fenced)
   */
  @Benchmark
  public boolean gateFencedWrite(HeldFence fence) {
    boolean entered = FileWriteGate.enterPath("FileOutputStream", audited.getPath());
    FileWriteGate.exit(entered);
    return entered;
  }

  /**
   * @return whether the gate was entered (with the agent: yes, judged unfenced, its call site
   *     already reported after the first call)
   */
  @Benchmark
  public boolean gateUnfencedWrite() {
    boolean entered = FileWriteGate.enterPath("FileOutputStream", audited.getPath());
    FileWriteGate.exit(entered);
    return entered;
  }

  /**
   * S3Proxy in the fork, on 127.0.0.1 with its in-memory {@code transient} store, and an {@code
   * S3Client} on Apache HttpClient 5 (the SDK's default, as in the demo), path-style. The bucket is
   * made through the store, so that no audited call but the benchmark's own is made.
   */
  @State(Scope.Thread)
  public static class S3Target {
    static final String BUCKET = "audit-bench";
    private static final String KEY_ID = "bench-key";
    private static final String SECRET = "bench-secret";

    private BlobStore store;
    private S3Proxy proxy;
    private S3Client client;

    /**
     * Starts S3Proxy and builds the client.
     *
     * @throws Exception when S3Proxy does not start
     */
    @Setup(Level.Trial)
    public void start() throws Exception {
      Properties properties = new Properties();
      properties.setProperty("jclouds.identity", KEY_ID);
      properties.setProperty("jclouds.credential", SECRET);
      store = BlobStores.create("transient", properties);
      store.createContainer(BUCKET);
      proxy =
          S3Proxy.builder()
              .blobStore(store)
              .endpoint(URI.create("http://127.0.0.1:0"))
              .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, KEY_ID, SECRET)
              .build();
      proxy.start();
      while (!"STARTED".equals(proxy.getState())) {
        if ("FAILED".equals(proxy.getState())) {
          throw new IllegalStateException("S3Proxy failed to start");
        }
        Thread.onSpinWait();
      }
      client =
          S3Client.builder()
              .endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
              .region(Region.US_EAST_1)
              .credentialsProvider(
                  StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY_ID, SECRET)))
              .forcePathStyle(true)
              .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
              .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
              .httpClientBuilder(Apache5HttpClient.builder())
              .build();
    }

    /**
     * Closes the client and stops S3Proxy.
     *
     * @throws Exception when S3Proxy does not stop
     */
    @TearDown(Level.Trial)
    public void stop() throws Exception {
      client.close();
      try {
        proxy.stop();
      } finally {
        store.close();
      }
    }
  }

  /**
   * A fence held by the benchmark thread through each iteration (JMH runs a thread-scoped state's
   * iteration set-up and tear-down on the thread that measures), granted by a no-op lease store.
   */
  @State(Scope.Thread)
  public static class HeldFence {
    private static final FenceRequest REQUEST =
        FenceRequest.builder("audit").holderLabel("bench").build();

    private WriterFence fence;
    private FencedCall held;

    /** Builds the fence on the no-op store. */
    @Setup(Level.Trial)
    public void build() {
      fence =
          WriterFence.builder(new NoopLeaseStore())
              .withoutRenewal()
              .releaseOnJvmShutdown(false)
              .build();
    }

    /** Acquires the fence on this thread. */
    @Setup(Level.Iteration)
    public void hold() {
      held = FencedCalls.enter(fence, REQUEST);
    }

    /** Releases it. */
    @TearDown(Level.Iteration)
    public void release() {
      held.exit(null, null, void.class);
    }

    /** Closes the fence. */
    @TearDown(Level.Trial)
    public void close() {
      fence.close();
    }
  }
}
