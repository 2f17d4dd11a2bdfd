package dev.writerfence.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.cli.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit --format mermaid|html} on reports shaped as the agent writes them: one bucket with
 * an unfenced and a fenced writer (in call site order), one with two fence names, and labels full
 * of characters Mermaid and HTML would parse. The flowchart is read by its grammar ({@link
 * MermaidFlowchart}), the page by jsoup.
 */
class WriterMapPictureTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ODD = "job \"nightly\" [a|b] {x} <y> #1; & 'z' é";

  @TempDir Path dir;

  @Test
  void theFlowchartDrawsBucketsFenceNamesAndWritersColouredByStatus() throws Exception {
    Cli.Run run = Cli.run("audit", "--format", "mermaid", "--report", report().toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err())
        .as("the summary goes to stderr, so stdout is the picture alone")
        .contains("writer-fence audit (log): 2 unfenced writes at 1 call site")
        .doesNotContain("flowchart");
    MermaidFlowchart chart = MermaidFlowchart.parse(run.out());
    assertThat(chart.subgraphs()).containsValues("bucket corpus", "bucket mixed");
    assertThat(chart.shapes())
        .containsEntry("b0", "cylinder")
        .containsEntry("f0_0", "hexagon")
        .containsEntry("w0_0", "box");
    assertThat(chart.textOf("b0")).isEqualTo("corpus");
    assertThat(chart.textOf("f0_0")).isEqualTo("fence corpus");
    assertThat(chart.textOf("w0_1"))
        .isEqualTo(
            "upload@h:1\ncom.acme.Upload.put(Upload.java:10)\nfenced by com.acme.Upload.run()\n"
                + "aws-s3-v2 putObject x4");
    assertThat(chart.textOf("w0_0")).startsWith("no holder\ncom.acme.Legacy.put(");
    assertThat(chart.edges())
        .contains("f0_0 -->|guards| b0", "w0_1 -->|holds| f0_0", "w0_0 -.->|no fence| b0");
    assertThat(chart.classes())
        .containsEntry("w0_1", "fenced")
        .containsEntry("f0_0", "fenced")
        .containsEntry("w0_0", "unfenced")
        .containsEntry("b0", "bucket");
    assertThat(chart.subgraphs().get("s1")).isEqualTo("bucket mixed");
    assertThat(chart.textOf("f1_0")).as("labels are escaped, not lost").isEqualTo("fence " + ODD);
    assertThat(chart.classes())
        .as("two fence names on one bucket: both names and writers inconsistent")
        .containsEntry("f1_0", "inconsistent")
        .containsEntry("f1_1", "inconsistent")
        .containsEntry("w1_0", "inconsistent")
        .containsEntry("w1_1", "inconsistent");
  }

  @Test
  void thePageHoldsTheFlowchartAndATableOfEveryWriter() throws Exception {
    Cli.Run run = Cli.run("audit", "--format", "html", "--report", report().toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    Document page = Jsoup.parse(run.out());
    Element pre = page.selectFirst("pre.mermaid");
    assertThat(pre).isNotNull();
    MermaidFlowchart chart = MermaidFlowchart.parse(pre.wholeText());
    assertThat(chart.nodes()).hasSize(9);
    assertThat(page.select("table.writer-map thead th").eachText())
        .isEqualTo(WriterMapPicture.COLUMNS);
    List<Element> rows = page.select("table.writer-map tbody tr");
    assertThat(rows)
        .extracting(Element::className)
        .containsExactly("unfenced", "fenced", "inconsistent", "inconsistent");
    assertThat(rows.get(1).select("td").eachText())
        .startsWith("corpus", "fenced", "corpus", "upload@h:1", "aws-s3-v2");
    assertThat(rows.get(2).select("td").get(2).text()).isEqualTo(ODD);
    assertThat(page.select("script[src], link[href], img"))
        .as("nothing but Mermaid's module import is fetched")
        .isEmpty();
  }

  @Test
  void anEmptyMapIsOneNodeAndABadFormatIsAUsageError() throws Exception {
    Path empty = dir.resolve("empty.json");
    Files.writeString(
        empty, "{\"mode\":\"log\",\"map\":true,\"unfenced_writes\":[],\"fenced_writes\":[]}");

    Cli.Run run = Cli.run("audit", "--format", "mermaid", "--report", empty.toString());
    Cli.Run bad = Cli.run("audit", "--format", "svg", "--report", empty.toString());

    assertThat(MermaidFlowchart.parse(run.out()).nodes())
        .isEqualTo(Map.of("none", "no write seen"));
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--format 'svg' is not allowed: text, mermaid or html");
  }

  /** Two buckets: corpus (fenced + unfenced writer), mixed (two fence names). */
  private Path report() throws Exception {
    ObjectNode root = JSON.createObjectNode();
    root.put("mode", "log");
    root.put("map", true);
    ArrayNode unfenced = root.putArray("unfenced_writes");
    ArrayNode fenced = root.putArray("fenced_writes");
    fenced.add(
        row("corpus", "com.acme.Upload.put(Upload.java:10)", 4)
            .put("fence_name", "corpus")
            .put("holder_label", "upload@h:1")
            .put("fenced_by", "com.acme.Upload.run()"));
    unfenced.add(row("corpus", "com.acme.Legacy.put(Legacy.java:5)", 2).put("refused", 0));
    fenced.add(
        row("mixed", "com.acme.A.put(A.java:1)", 1)
            .put("fence_name", ODD)
            .put("holder_label", "a@h:2"));
    fenced.add(
        row("mixed", "com.acme.B.put(B.java:1)", 1)
            .put("fence_name", "other")
            .put("holder_label", "b@h:3"));
    Path file = dir.resolve("report.json");
    Files.writeString(file, JSON.writeValueAsString(root));
    return file;
  }

  private static ObjectNode row(String bucket, String site, long count) {
    ObjectNode row = JSON.createObjectNode();
    row.put("client", "aws-s3-v2");
    row.put("operation", "putObject");
    row.put("bucket", bucket);
    row.put("call_site", site);
    row.put("count", count);
    row.putArray("keys").add("k/" + count);
    return row;
  }
}
