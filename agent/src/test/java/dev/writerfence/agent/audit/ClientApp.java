package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.testing.ForkedJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;

/**
 * One run of a client app ({@code org.example.clients.*}) in its own JVM with the real agent jar
 * and {@code audit.report} set, to its end. The app's class path is the test class path without
 * this module's own classes, so the agent's classes come from the shaded jar only.
 *
 * @param output the app's standard output, one line per operation, {@code done} last
 * @param errors its standard error
 * @param report the JSON report written at exit
 */
record ClientApp(List<String> output, String errors, JsonNode report) {
  static ClientApp run(String mainClass, Path report, List<String> settings, String... args)
      throws IOException, InterruptedException {
    return run(ForkedJvm.javaBinary(), mainClass, report, settings, args);
  }

  static ClientApp run(
      String java, String mainClass, Path report, List<String> settings, String... args)
      throws IOException, InterruptedException {
    return run(java, List.of(), mainClass, report, settings, args);
  }

  /**
   * As {@link #run(String, String, Path, List, String...)}, with JVM options of the app's own.
   *
   * @param jvmOptions options after the default ones, such as {@code --add-opens ...}
   */
  static ClientApp run(
      String java,
      List<String> jvmOptions,
      String mainClass,
      Path report,
      List<String> settings,
      String... args)
      throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(settings);
    all.add("audit.report=" + report);
    AuditApp run = AuditApp.launch(java, jvmOptions, mainClass, all, args);
    List<String> output = run.output();
    String errors = run.errors();
    assertThat(run.exitCode()).as("exit status; stderr:%n%s", errors).isZero();
    assertThat(output).as("stderr:%n%s", errors).last().isEqualTo("done");
    assertThat(errors)
        .as("agent trouble")
        .doesNotContain("could not instrument")
        .doesNotContain("refused to load");
    assertThat(report).as("stderr:%n%s", errors).exists();
    ReportRoundTrip.assertReadsEveryField(report);
    return new ClientApp(output, errors, new ObjectMapper().readTree(report.toFile()));
  }

  /**
   * @return the unfenced writes of the report as (client, operation, bucket, key, count), for
   *     comparing with {@code tuple(...)}
   */
  List<Tuple> listed() {
    return writes().stream()
        .map(
            w ->
                tuple(
                    w.get("client").asText(),
                    w.get("operation").asText(),
                    w.get("bucket").asText(),
                    w.get("key").asText(),
                    w.get("count").asLong()))
        .toList();
  }

  /**
   * Every listed write names a frame of the app as its call site, and was refused as often as
   * {@code refused} says.
   *
   * @param app the app's main class
   * @param refused 0 in log mode, 1 in enforce mode
   */
  void assertEachWriteFrom(String app, long refused) {
    assertThat(writes())
        .as(report.toPrettyString())
        .isNotEmpty()
        .allSatisfy(
            w -> {
              assertThat(w.get("call_site").asText()).startsWith(app + ".");
              assertThat(w.get("refused").asLong()).isEqualTo(refused);
            });
  }

  /**
   * @return the unfenced writes of the report
   */
  List<JsonNode> writes() {
    List<JsonNode> list = new ArrayList<>();
    report.get("unfenced_writes").forEach(list::add);
    return list;
  }
}
