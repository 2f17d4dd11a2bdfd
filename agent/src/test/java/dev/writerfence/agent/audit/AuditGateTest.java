package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.bootstrap.AuditGate;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bootstrap gate's contract, with a recording sink in place of the agent's recorder. */
class AuditGateTest {
  private final List<String> unfenced = new CopyOnWriteArrayList<>();
  private String required;
  private boolean refuse;

  private final AuditGate.Sink sink =
      new AuditGate.Sink() {
        @Override
        public String requiredFence(String client) {
          return required;
        }

        @Override
        public void unfenced(
            String client, String operation, Object target, String bucket, String key) {
          unfenced.add(client + " " + operation + " " + key);
          if (refuse) {
            throw new UnfencedWriteException(client, operation, bucket, key, "here", required);
          }
        }
      };

  @AfterEach
  void removeSink() {
    AuditGate.install(null);
  }

  @Test
  void nestedWritesOnOneThreadAreJudgedOnce() {
    AuditGate.install(sink);

    AuditGate.enter("c", "uploadFile", "b", "k");
    AuditGate.enter("c", "putObject", "b", "k"); // the transfer's own putObject
    AuditGate.enter("c", "putObject", "b", "k"); // the wrapped client's delegate
    AuditGate.exit();
    AuditGate.exit();
    AuditGate.exit();
    AuditGate.enter("c", "deleteObject", "b", "k2");
    AuditGate.exit();

    assertThat(unfenced).containsExactly("c uploadFile k", "c deleteObject k2");
    assertThat(AuditGate.nested()).isFalse();
  }

  @Test
  void aRefusedWriteLeavesNoDepthBehind() {
    AuditGate.install(sink);
    refuse = true;

    assertThatThrownBy(() -> AuditGate.enter("c", "putObject", "b", "k"))
        .isInstanceOf(UnfencedWriteException.class)
        .hasMessageContaining("putObject")
        .hasMessageContaining("here");
    assertThat(AuditGate.nested()).isFalse();
    assertThatThrownBy(() -> AuditGate.enter("c", "putObject", "b", "k2"))
        .isInstanceOf(UnfencedWriteException.class);
    assertThat(unfenced).hasSize(2);
  }

  @Test
  void aValidHoldIsFencedAndALostOneIsNot() {
    AuditGate.install(sink);
    AtomicBoolean valid = new AtomicBoolean(true);
    Object lease = new Object();
    HeldFenceStack.push(new HeldFenceStack.Entry("corpus", "domain", lease, valid::get));
    try {
      write("fenced");
      valid.set(false); // renewal failed or the TTL ran out
      write("after loss");
    } finally {
      HeldFenceStack.pop(lease);
    }

    assertThat(unfenced).containsExactly("c putObject after loss");
  }

  @Test
  void aRequiredFenceNameMustBeTheOneHeld() {
    AuditGate.install(sink);
    required = "corpus";
    Object lease = new Object();
    HeldFenceStack.push(new HeldFenceStack.Entry("other", "domain", lease, () -> true));
    try {
      write("under another fence");
    } finally {
      HeldFenceStack.pop(lease);
    }

    assertThat(unfenced).containsExactly("c putObject under another fence");
  }

  @Test
  void withoutASinkNothingIsJudged() {
    write("audit off");

    assertThat(unfenced).isEmpty();
    assertThat(AuditGate.nested()).isFalse();
  }

  private static void write(String key) {
    AuditGate.enter("c", "putObject", "b", key);
    AuditGate.exit();
  }
}
