package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.unwoven.UnwovenApp;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * C37 with the agent: a {@code @WriterFenced} method whose class no weaving reached (what AspectJ
 * load-time weaving without the writer-fence aspect registered leaves) writes under the audit, in
 * its own JVM with the real agent in audit mode and no fencing of its own. The method is never
 * silent: reported once as annotated but not fenced, naming it and the likely cause.
 */
class AnnotatedButUnfencedIT {
  private static final String METHOD =
      UnwovenApp.Uploader.class.getName() + ".upload(Path, String)";

  @TempDir Path dir;

  @Test
  void C37_anAnnotatedMethodThatRanUnwovenIsReportedOnceNamingItAndTheLikelyCause()
      throws Exception {
    ClientApp app = runUnwoven("log");

    assertThat(app.output()).contains("wrote a.json", "wrote b.json");
    List<JsonNode> findings = new ArrayList<>();
    app.report().path("annotated_not_fenced").forEach(findings::add);
    assertThat(findings).as(app.report().toPrettyString()).hasSize(1);
    assertThat(findings.get(0).get("method").asText()).isEqualTo(METHOD);
    assertThat(findings.get(0).get("cause").asText())
        .startsWith("its class is not woven")
        .contains("aop.xml", "dev.writerfence.aspectj.WriterFencedAspect");
    assertThat(app.errors())
        .contains("@WriterFenced method " + METHOD + " ran with no fence held")
        .contains("annotated but not fenced: @WriterFenced " + METHOD);
  }

  @Test
  void C37_enforceRefusesTheUnwovenMethodsWritesAndStillNamesIt() throws Exception {
    Path volume = dir.resolve("volume");
    ClientApp app = runUnwoven("enforce");

    assertThat(app.output()).anyMatch(l -> l.startsWith("refused a.json"));
    assertThat(volume.resolve("a.json")).doesNotExist();
    assertThat(app.report().path("annotated_not_fenced").get(0).get("method").asText())
        .isEqualTo(METHOD);
  }

  /** Runs {@link UnwovenApp} with the agent in {@code mode}, auditing {@code dir/volume}. */
  private ClientApp runUnwoven(String mode) throws Exception {
    Path volume = Files.createDirectory(dir.resolve("volume"));
    return ClientApp.run(
        UnwovenApp.class.getName(),
        dir.resolve("report.json"),
        List.of("audit.mode=" + mode, "audit.paths=" + volume),
        volume.toString());
  }
}
