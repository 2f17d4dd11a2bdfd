package dev.writerfence.benchmarks.jmh;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.benchmarks.weaving.NoopLeaseStore;
import dev.writerfence.benchmarks.weaving.ProxiedWriter;
import dev.writerfence.benchmarks.weaving.ctw.WovenWriter;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.spring.aop.WriterFenceAdvisor;
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
import org.springframework.aop.framework.ProxyFactory;

/**
 * The cost of reaching the fence, with no database: a {@link NoopLeaseStore} grants every lease.
 * {@code direct} is {@code WriterFence.call} by hand; {@code aspectj} and {@code springAop} are an
 * {@code @WriterFenced} call woven by ajc and through the Spring starter's advisor. Their
 * difference to {@code direct} is the weaving overhead; {@code plain} is the unfenced call.
 * Sampled, so that the report can use the median: on a shared machine a mean takes in every time
 * slice the benchmark thread waited for a core, the median mostly does not.
 *
 * <p>The agent's row is not here yet: the agent's fence feature (fencing methods named in its
 * configuration) had not landed in {@code agent/} when this was written. TODO: add {@code agent} (a
 * forked JVM with {@code -javaagent:agent/target/writer-fence-agent.jar}) once it has.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WeavingBenchmark {
  private static final FenceRequest REQUEST =
      FenceRequest.builder("weaving").holderLabel("bench").build();

  private WriterFence fence;
  private WovenWriter woven;
  private ProxiedWriter proxied;
  private ProxiedWriter plain;
  private int value;

  /** Builds the fence on the no-op store and the three writers. */
  @Setup(Level.Trial)
  public void open() {
    fence =
        WriterFence.builder(new NoopLeaseStore())
            .withoutRenewal()
            .releaseOnJvmShutdown(false)
            .build();
    ProcessFence.set(fence);
    woven = new WovenWriter();
    plain = new ProxiedWriter();
    ProxyFactory factory = new ProxyFactory(new ProxiedWriter());
    factory.setProxyTargetClass(true);
    factory.addAdvisor(new WriterFenceAdvisor(() -> fence));
    proxied = (ProxiedWriter) factory.getProxy();
  }

  /** Closes the fence. */
  @TearDown(Level.Trial)
  public void close() {
    fence.close();
  }

  /**
   * @return the unfenced call's result
   */
  @Benchmark
  public int plain() {
    return plain.write(value++);
  }

  /**
   * @return the result of the call made under {@code WriterFence.call}
   * @throws Exception never (the no-op store grants every lease)
   */
  @Benchmark
  public int direct() throws Exception {
    int v = value++;
    return fence.call(REQUEST, () -> plain.write(v));
  }

  /**
   * @return the result of the ajc-woven call
   */
  @Benchmark
  public int aspectj() {
    return woven.write(value++);
  }

  /**
   * @return the result of the call through the Spring AOP proxy
   */
  @Benchmark
  public int springAop() {
    return proxied.write(value++);
  }
}
