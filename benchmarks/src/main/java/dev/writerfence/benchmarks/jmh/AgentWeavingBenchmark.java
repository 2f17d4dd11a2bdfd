package dev.writerfence.benchmarks.jmh;

import dev.writerfence.benchmarks.weaving.AgentNoopFence;
import dev.writerfence.benchmarks.weaving.AgentWriter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The agent's row of {@link WeavingBenchmark}: an {@code @WriterFenced} call fenced by the
 * writer-fence agent's inlined advice, with no database (see {@link AgentNoopFence}). Runs only in
 * a fork started with {@code -javaagent:agent/target/writer-fence-agent.jar} (the launcher does so
 * when the jar is built).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AgentWeavingBenchmark {
  private AgentWriter writer;
  private int value;

  /**
   * @throws ReflectiveOperationException when the agent's classes are not as expected
   */
  @Setup(Level.Trial)
  public void open() throws ReflectiveOperationException {
    AgentNoopFence.install();
    writer = new AgentWriter();
  }

  /**
   * @return the result of the call fenced by the agent
   */
  @Benchmark
  public int agent() {
    return writer.write(value++);
  }
}
