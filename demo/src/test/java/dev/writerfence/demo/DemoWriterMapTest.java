package dev.writerfence.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.cli.audit.MermaidFlowchart;
import dev.writerfence.cli.audit.WriterMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checks on the demo's writer map, on reports shaped as the agent writes them: the map the demo
 * shows must be able to fail the run. DemoCommandTest runs the real agent.
 */
class DemoWriterMapTest {
  private static final String BUCKET = DemoEnvironment.BUCKET;
  private static final String SITE = CorpusWriter.class.getName() + ".put(CorpusWriter.java:1)";

  @TempDir Path dir;

  @Test
  void everyWriterFencedUnderTheRunsFenceIsNoFailure() throws Exception {
    RunFolder folder = new RunFolder(dir);
    report(folder, "write-back", fenced(BUCKET, "corpus", "write-back@h:1", 4));
    report(folder, "upload", fenced(BUCKET, "corpus", "upload@h:2", 8));
    report(folder, LegacyProcess.LABEL, unfenced(DemoEnvironment.LEGACY_BUCKET));

    DemoWriterMap map =
        DemoWriterMap.read(
            List.of(wrote("write-back", 4), wrote("upload", 8)), folder, BUCKET, "corpus");

    assertThat(map.failures()).isEmpty();
    assertThat(map.map().writers())
        .as("the legacy writer's other bucket is not in the bucket's map")
        .extracting(WriterMap.Writer::holderLabel, WriterMap.Writer::count)
        .containsExactly(tuple("upload@h:2", 8L), tuple("write-back@h:1", 4L));
  }

  @Test
  void anUnfencedWriterAnotherFenceNameAndAMissingWriterFailTheRun() throws Exception {
    RunFolder folder = new RunFolder(dir);
    report(folder, "write-back", fenced(BUCKET, "corpus", "write-back@h:1", 4));
    report(folder, "upload", fenced(BUCKET, "other", "upload@h:2", 4), unfenced(BUCKET));
    report(folder, "pull_sync", fenced("elsewhere", "corpus", "pull_sync@h:3", 4));

    DemoWriterMap map =
        DemoWriterMap.read(
            List.of(
                wrote("write-back", 4),
                wrote("upload", 4),
                wrote("pull_sync", 4),
                wrote("write-back-2", 4)),
            folder,
            BUCKET,
            "corpus");

    assertThat(map.failures())
        .anySatisfy(f -> assertThat(f).contains("has a writer unfenced at " + SITE))
        .anySatisfy(
            f -> assertThat(f).contains("has a writer inconsistent under fence 'other'", "upload@"))
        .anySatisfy(
            f ->
                assertThat(f)
                    .contains("has a writer inconsistent under fence 'corpus'", "write-back@"))
        .anySatisfy(f -> assertThat(f).contains("lacks writer pull_sync, which wrote 4 objects"))
        .anySatisfy(f -> assertThat(f).contains("writer write-back-2 left no audit report at "))
        .hasSize(5);
  }

  @Test
  void thePictureIsMermaidTextForMmdAndOnlyHtmlOrMmdAreAllowed() throws Exception {
    RunFolder folder = new RunFolder(dir);
    report(folder, "upload", fenced(BUCKET, "corpus", "upload@h:2", 8), unfenced(BUCKET));
    DemoWriterMap map = DemoWriterMap.read(List.of(wrote("upload", 8)), folder, BUCKET, "corpus");
    Path file = dir.resolve("maps").resolve("map.mmd");

    map.writePicture(file);

    MermaidFlowchart chart = MermaidFlowchart.parse(Files.readString(file));
    assertThat(chart.classes()).containsValues("fenced", "unfenced");
    assertThat(chart.edges()).hasSize(3); // fence -> bucket, writer -> fence, writer -.-> bucket
    assertThatThrownBy(() -> DemoWriterMap.pictureFormat(Path.of("map.svg")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--map-file 'map.svg' is not allowed: a name ending in .html (a page) or .mmd (Mermaid"
                + " text)");
  }

  private static WriterResult wrote(String label, int objects) {
    List<String> keys = IntStream.range(0, objects).mapToObj(i -> "k" + i).toList();
    SectionRecord section = new SectionRecord(label, 1, 0, 1, 0, 1, 0, 1, keys, 1, 0, null);
    return new WriterResult(label, 1, 0, null, List.of(section));
  }

  private static ObjectNode fenced(String bucket, String fence, String holder, long count) {
    ObjectNode row = row(bucket, count);
    row.put("fence_name", fence);
    row.put("holder_label", holder);
    return row;
  }

  private static ObjectNode unfenced(String bucket) {
    ObjectNode row = row(bucket, 1);
    row.put("refused", 0);
    return row;
  }

  private static ObjectNode row(String bucket, long count) {
    ObjectNode row = Json.MAPPER.createObjectNode();
    row.put("client", "aws-s3-v2");
    row.put("operation", "putObject");
    row.put("bucket", bucket);
    row.put("call_site", SITE);
    row.put("count", count);
    row.putArray("keys").add("corpus/k");
    return row;
  }

  /** A report as the agent writes it: fenced rows carry a fence name, unfenced ones do not. */
  private static void report(RunFolder folder, String label, ObjectNode... rows) throws Exception {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("mode", "log");
    ArrayNode unfenced = root.putArray("unfenced_writes");
    ArrayNode fenced = root.putArray("fenced_writes");
    for (ObjectNode row : rows) {
      (row.has("fence_name") ? fenced : unfenced).add(row);
    }
    Files.writeString(folder.auditReport(label), Json.MAPPER.writeValueAsString(root));
  }
}
