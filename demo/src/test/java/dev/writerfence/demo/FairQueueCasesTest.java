package dev.writerfence.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.cli.Cli;
import dev.writerfence.testing.CpuLoad;
import org.junit.jupiter.api.Test;

/**
 * C25: three writer processes of four threads each (the demo's defaults: the same load, and its
 * writers' fence settings: library defaults but for a 60 s budget, {@code retry.max-wait}) share
 * the fence for 10 s, on a quiet machine and beside a CPU load, the case's claims asserted on the
 * demo's record: every process acquires, Jain's index over their acquisitions is at least 0.95, no
 * fenced call gives up busy, zero overlaps. The first two hold whatever the load, since the queue
 * decides the order; no give-up holds while a thread's turn, after the eleven other threads', comes
 * within the budget: with the library's 3 s default that failed once the machine was loaded
 * (docs/benchmarks.md), with 60 s it holds at a load far beyond this test's.
 */
class FairQueueCasesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Spinning threads beside the run: with the three writer JVMs, S3Proxy, PostgreSQL and this JVM,
   * a load of 5 or more on this 2-core machine.
   */
  private static final int LOAD_THREADS = 3;

  @Test
  void C25_threeWriterProcessesOfFourThreadsAllAcquireFairly() throws Exception {
    System.out.println("C25 " + assertFairAndExclusive(demo(), "quiet"));
  }

  @Test
  void C25_besideACpuLoadEveryProcessStillAcquiresFairly() throws Exception {
    try (CpuLoad load = CpuLoad.start(LOAD_THREADS)) {
      JsonNode summary = demo();
      String record =
          assertFairAndExclusive(summary, "beside " + load.threads() + " spinning threads");
      System.out.println("C25 " + record);
    }
  }

  /** The demo with its defaults (3 writer processes x 4 threads), for 10 s. */
  private static JsonNode demo() throws Exception {
    Cli.Run run =
        Cli.runOn(
            DemoCli.commandLine(),
            "demo",
            "--json",
            "--seconds",
            "10",
            "--map-file",
            "target/fair-queue-writer-map.html");
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    JsonNode summary = JSON.readTree(run.out());
    assertThat(summary.get("writers").asInt()).isEqualTo(3);
    assertThat(summary.get("threads").asInt()).isEqualTo(4);
    return summary;
  }

  /**
   * @return the fairness block and the writers, for messages
   */
  private static String assertFairAndExclusive(JsonNode summary, String machine) {
    JsonNode fairness = summary.get("fairness");
    String record = machine + ": " + fairness + " " + summary.get("per_writer");
    assertThat(summary.get("per_writer"))
        .as(record)
        .allSatisfy(w -> assertThat(w.get("acquisitions").asInt()).isPositive());
    assertThat(fairness.get("every_writer_acquired").asBoolean()).as(record).isTrue();
    assertThat(fairness.get("jain_index").asDouble()).as(record).isGreaterThanOrEqualTo(0.95);
    assertThat(fairness.get("busy_give_ups").asLong()).as(record).isZero();
    assertThat(summary.get("overlaps").asInt()).isZero();
    assertThat(summary.get("token_order_violations").asInt()).isZero();
    assertThat(summary.get("violations").asInt()).isZero();
    assertThat(summary.get("ok").asBoolean()).isTrue();
    return record;
  }
}
