package dev.writerfence.benchmarks.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ContentionShapeTest {

  @Test
  void filesNameTheContendersAndTheMode() {
    ContentionShape shape = ContentionShape.of("processes", "retry");

    assertThat(shape.id()).isEqualTo("processes-retry");
    assertThat(shape.jmhFile(64)).isEqualTo("contention-processes-retry-t64.json");
    assertThat(shape.recordFile("lease", 64))
        .isEqualTo("contention-lease-processes-retry-t64.json");
    assertThat(ContentionShape.of("threads", "try").recordFile("advisory", 2))
        .isEqualTo("contention-advisory-threads-try-t2.json");
  }

  @Test
  void unknownValuesAreNamedWithTheAllowedOnes() {
    assertThatThrownBy(() -> ContentionShape.of("jvms", "try"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("contenders 'jvms' is not known: one of threads, processes");
    assertThatThrownBy(() -> ContentionShape.of("threads", "spin"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("mode 'spin' is not known: one of try, retry");
  }
}
