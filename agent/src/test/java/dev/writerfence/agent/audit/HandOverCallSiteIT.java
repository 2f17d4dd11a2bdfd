package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.example.clients.HandOverApp;
import org.example.queue.QueueWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write on a plain executor's thread whose stack names only a library ({@link QueueWriter}, in a
 * package given as {@code audit.library-packages}): {@link HandOverApp} in its own JVM with the
 * real agent and {@code audit.paths}, where the executors are instrumented from start. The report
 * names the library's frame handed over from the application frame that submitted the task.
 */
class HandOverCallSiteIT {
  @TempDir Path dir;

  @Test
  void aLibraryTaskOnAnExecutorNamesTheApplicationFrameThatHandedItOver() throws Exception {
    Path in = Files.createDirectory(dir.resolve("volume"));

    ClientApp app =
        ClientApp.run(
            HandOverApp.class.getName(),
            dir.resolve("report.json"),
            List.of(
                "audit.mode=log",
                "audit.paths=" + in,
                "audit.library-packages=" + QueueWriter.class.getPackageName()),
            in.toString());

    assertThat(app.output()).as(app.errors()).contains("wrote submitted", "wrote executed");
    String library = QueueWriter.class.getName() + ".run(";
    String from = " handed over from " + HandOverApp.class.getName() + ".";
    assertThat(app.writes())
        .as(app.report().toPrettyString())
        .extracting(w -> w.get("key").asText(), w -> w.get("call_site").asText())
        .satisfiesExactlyInAnyOrder(
            w -> {
              assertThat(w.toList().get(0)).isEqualTo(in.resolve("submitted").toString());
              assertThat((String) w.toList().get(1))
                  .startsWith(library)
                  .contains(from + "submitted(HandOverApp.java:");
            },
            w -> {
              assertThat(w.toList().get(0)).isEqualTo(in.resolve("executed").toString());
              assertThat((String) w.toList().get(1))
                  .startsWith(library)
                  .contains(from + "executed(HandOverApp.java:");
            });
  }
}
