package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.bootstrap.AuditGate;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
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
    HeldFenceStack.Entry lease = new Hold("corpus", valid::get);
    HeldFenceStack.push(lease);
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
    HeldFenceStack.Entry lease = new Hold("other", () -> true);
    HeldFenceStack.push(lease);
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

  /** A hold as a copy of core would push it; only its name and validity matter to the gate. */
  private record Hold(String fenceName, BooleanSupplier valid) implements HeldFenceStack.Entry {
    @Override
    public Object domain() {
      return "domain";
    }

    @Override
    public String domainName() {
      return null;
    }

    @Override
    public Object lease() {
      return this;
    }

    @Override
    public boolean isValid() {
      return valid.getAsBoolean();
    }

    @Override
    public String lostReason() {
      return null;
    }

    @Override
    public UUID holderToken() {
      return new UUID(0, 1);
    }

    @Override
    public String holderLabel() {
      return null;
    }

    @Override
    public long fencingToken() {
      return 1;
    }

    @Override
    public Instant acquiredAt() {
      return Instant.EPOCH;
    }

    @Override
    public Instant expiresAt() {
      return Instant.EPOCH;
    }

    @Override
    public Duration ttl() {
      return Duration.ofSeconds(1);
    }
  }
}
