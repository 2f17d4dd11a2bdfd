package dev.writerfence.benchmarks.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockBackendTest {

  @Test
  void onlyWriterFenceKindsRetry() {
    assertThat(LockBackend.Kind.values())
        .filteredOn(LockBackend.Kind::retries)
        .containsExactly(LockBackend.Kind.LEASE, LockBackend.Kind.ADVISORY);
  }

  @Test
  void aKindWithoutAWaitingCycleRefusesItByName() {
    LockBackend shedLock =
        new LockBackend() {
          @Override
          public Kind kind() {
            return Kind.SHEDLOCK;
          }

          @Override
          public boolean cycle(String name, Runnable criticalSection) {
            return true;
          }

          @Override
          public void close() {}
        };

    assertThatThrownBy(() -> shedLock.cycleWaiting("n", () -> {}))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageStartingWith("backend 'shedlock' has no waiting cycle (retry mode)");
  }
}
