package dev.writerfence.benchmarks.jmh;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.benchmarks.weaving.NoopLeaseStore;
import dev.writerfence.bootstrap.FileWriteGate;
import dev.writerfence.spi.FencedCall;
import dev.writerfence.spi.FencedCalls;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost the agent's audit advice adds to a storage call, on the JDK's own file classes (which
 * the agent instruments when {@code audit.paths} is set): the same methods run in a fork without
 * the agent and in one with {@code -javaagent} and {@code audit.mode=log}, {@code
 * audit.paths=DIR/audited}; the difference per method is the advice's cost. No network, no
 * database: a no-op lease store grants the fence.
 *
 * <ul>
 *   <li>{@code outside}: {@code FileOutputStream} open and close outside {@code audit.paths}:
 *       advised, not audited (the gate's prefix compare).
 *   <li>{@code fencedWrite}: the same under {@code audit.paths} while this thread holds a fence:
 *       judged fenced, nothing reported.
 *   <li>{@code unfencedWrite}: the same with no fence: reported once for its call site, after which
 *       every call walks the stack to find that call site and counts it.
 * </ul>
 *
 * <p>A file open costs microseconds of system calls, whose spread between two forks is wider than
 * the advice itself; so the {@code gate...} methods also call what the inlined advice calls ({@link
 * FileWriteGate}) directly, with the same arguments, and nothing else: {@code gateRead} as {@code
 * RandomAccessFile(f, "r")} under {@code audit.paths} would (not a write: the gate returns on the
 * open mode), {@code gateOutside} and {@code gateFencedWrite} as the file rows above. Without the
 * agent the gate has no {@code audit.paths} and returns at once; in the agent's fork the bootstrap
 * class loader's copy, configured by the agent, answers.
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

  /** {@code RandomAccessFile}'s internal read-only open mode, as its advice passes it. */
  private static final int READ_ONLY = 1;

  private File readable;
  private File audited;
  private File outside;

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
