package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.agent.HugeClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A class the agent matches but cannot transform: its one write operation is already as large as
 * the class file format allows, so no advice fits. The audit fails open, unlike the fence ({@code
 * FenceRefusalIT}): the host runs on, with the class unchanged, and the agent says so once, in one
 * line naming the class and the agent's version. A public write operation {@code
 * upload(UploadRequest)}; the request type need not exist: the JVM never loads it for a {@code
 * null} argument.
 */
class InstrumentationFailureIT {
  /** Matched by name by the S3 audit (the transfer manager's internal package, no hierarchy). */
  private static final String HUGE =
      "software.amazon.awssdk.transfer.s3.internal.HugeTransferManager";

  /** The argument type that makes {@code upload} a transfer-manager write to the audit. */
  private static final String REQUEST = "software/amazon/awssdk/transfer/s3/model/UploadRequest";

  @Test
  void failedInstrumentationIsLoggedOnceAndTheHostRunsOn() throws IOException {
    Path classes = Files.createTempDirectory("writer-fence-huge-");
    new HugeClass(HUGE, "upload", REQUEST, null, "huge transfer manager ran", true)
        .writeInto(classes);
    HugeClass.write(classes, REQUEST, HugeClass.emptyClass(REQUEST));

    AgentJvm.Result r =
        AgentJvm.onThisJdk().withAgent("audit.mode=log").classPath(classes).main(HUGE).run();

    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout()).as(r.describe()).containsExactly("huge transfer manager ran");
    List<String> failures =
        r.stderr().lines().filter(l -> l.contains("could not instrument")).toList();
    assertThat(failures).as(r.describe()).hasSize(1);
    assertThat(failures.get(0))
        .startsWith("writer-fence agent " + AgentJvm.agentVersion() + ": ")
        .contains("could not instrument " + HUGE + ", left unchanged: ");
  }
}
