package dev.writerfence.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.benchmarks.measure.ContentionShape;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanTest {

  private static List<String> shapes(Plan plan) {
    return plan.contention().stream().map(c -> c.shape().id()).toList();
  }

  @Test
  void smokeRunsTheLeaseAtTwoThreadsInOneProcessBothModes() {
    assertThat(Plan.SMOKE.contentionThreads()).containsExactly(2);
    assertThat(shapes(Plan.SMOKE)).containsExactly("threads-try", "threads-retry");
    assertThat(Plan.SMOKE.contention())
        .allSatisfy(c -> assertThat(c.backends()).containsExactly("lease"));
  }

  @Test
  void quickRunsTheLeaseInThreeShapesAndStaysInItsBudget() {
    assertThat(Plan.QUICK.contentionThreads()).containsExactly(1, 2, 8, 32, 64);
    assertThat(shapes(Plan.QUICK)).containsExactly("threads-try", "processes-try", "threads-retry");
    assertThat(Plan.QUICK.contention())
        .allSatisfy(c -> assertThat(c.backends()).containsExactly("lease"));
    // 197 s with 5 contention configurations, about 6 s each: the rest must stay under 300 s.
    int configurations =
        Plan.QUICK.contention().stream().mapToInt(c -> c.backends().size()).sum()
            * Plan.QUICK.contentionThreads().size();
    assertThat(197 + (configurations - 5) * 6).isLessThan(280);
  }

  @Test
  void fullRunsEveryPostgresBackendInBothContendersAndWriterFenceRetrying() {
    List<String> pg = List.of("lease", "advisory", "shedlock", "jdbcLockRegistry", "rawFloor");
    assertThat(shapes(Plan.FULL))
        .containsExactly("threads-try", "processes-try", "threads-retry", "processes-retry");
    assertThat(Plan.FULL.contention().get(0).backends()).isEqualTo(pg);
    assertThat(Plan.FULL.contention().get(1).backends()).isEqualTo(pg);
    assertThat(Plan.FULL.contention().get(2).backends()).containsExactly("lease", "advisory");
    assertThat(Plan.FULL.contention().get(3).backends()).containsExactly("lease", "advisory");
  }

  @Test
  void retryIsRefusedForAPeerAndAnUnknownBackendIsNamed() {
    ContentionShape retry = ContentionShape.of("processes", "retry");
    assertThatThrownBy(() -> new Plan.Contention(retry, List.of("lease", "shedlock")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("backend 'shedlock' has no retry mode: only lease and advisory");
    assertThatThrownBy(() -> new Plan.Contention(retry, List.of("etcd")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("backend 'etcd' is not known");
  }
}
