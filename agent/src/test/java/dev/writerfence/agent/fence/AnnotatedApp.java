package dev.writerfence.agent.fence;

import com.example.fenced.unwoven.BrokenWriter;
import com.example.fenced.unwoven.UnwovenWriter;
import com.example.fenced.woven.WovenWriter;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An application with its own writer-fence (core and the aspect), run by {@link AspectJWovenIT}
 * with the agent and AspectJ's load-time weaver. Prints one line per call: {@code woven acquired=A
 * holds=H} (A: acquires by the application's own fence so far; H: holds of the name inside the
 * write) and {@code unwoven acquired=A holds=H}.
 */
public final class AnnotatedApp {
  private AnnotatedApp() {}

  /**
   * @param args JDBC URL (superuser, no password), the woven writer's fence name, the unwoven
   *     writer's fence name, number of calls
   */
  public static void main(String[] args) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(args[0]);
    ds.setUser("postgres");
    AtomicInteger acquired = new AtomicInteger();
    ProcessFence.set(
        WriterFence.builder(ds)
            .listener(
                new FenceListener() {
                  @Override
                  public void acquired(FenceLease lease, int attempts, Duration waited) {
                    acquired.incrementAndGet();
                  }
                })
            .build());
    WovenWriter woven = new WovenWriter();
    UnwovenWriter unwoven = new UnwovenWriter();
    int calls = Integer.parseInt(args[3]);
    for (int i = 0; i < calls; i++) {
      long holds = woven.write(args[1]);
      System.out.println("woven acquired=" + acquired.get() + " holds=" + holds);
      holds = unwoven.write(args[2]);
      System.out.println("unwoven acquired=" + acquired.get() + " holds=" + holds);
    }
    BrokenWriter broken = new BrokenWriter();
    String outcome;
    try {
      broken.write();
      outcome = "ran";
    } catch (IllegalArgumentException e) {
      outcome = "refused " + e.getMessage();
    }
    System.out.println("broken " + outcome + " bodyRuns=" + broken.bodyRuns);
  }
}
