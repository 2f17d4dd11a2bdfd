package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.example.clients.FileWritesApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit's {@code writerfence.UnfencedWrite} event: {@link FileWritesApp} in its own JVM with
 * the real agent jar and a flight recording started on its command line, as an operator would with
 * {@code -XX:StartFlightRecording}; the recording, dumped at exit, is read back. Its fenced write
 * goes through the agent's own (relocated) copy of core, whose {@code writerfence.Acquire} and
 * {@code writerfence.Hold} events are in the same recording.
 */
class UnfencedWriteEventIT {
  @TempDir Path dir;

  @Test
  void aRecordingHoldsOneEventPerUnfencedWriteAndTheFencedWritesHold() throws Exception {
    Path in = Files.createDirectory(dir.resolve("volume"));
    Path out = Files.createDirectory(dir.resolve("elsewhere"));
    Path recording = dir.resolve("audit.jfr"); // outside the audited prefix
    String fence = FenceNames.random("files");

    ClientApp app =
        ClientApp.run(
            ForkedJvm.javaBinary(),
            List.of("-XX:StartFlightRecording=dumponexit=true,filename=" + recording),
            FileWritesApp.class.getName(),
            dir.resolve("report.json"),
            List.of("audit.mode=log", "audit.paths=" + in),
            EmbeddedDatabase.get().jdbcUrl(),
            fence,
            in.toString(),
            out.toString());

    assertThat(recording).as(app.errors()).exists();
    List<RecordedEvent> events = RecordingFile.readAllEvents(recording);
    List<RecordedEvent> unfenced =
        events.stream()
            .filter(e -> e.getEventType().getName().equals(UnfencedWriteEvents.NAME))
            .toList();
    assertThat(unfenced)
        .as("one event per unfenced write the report lists")
        .hasSize(app.writes().size())
        .allSatisfy(
            e -> {
              assertThat(e.getString("client")).isEqualTo("file");
              assertThat(e.getString("key")).startsWith(in + "/");
              assertThat(e.getString("callSite")).startsWith(FileWritesApp.class.getName() + ".");
              assertThat(e.getBoolean("refused")).isFalse();
            });
    assertThat(unfenced)
        .extracting(e -> e.getString("operation"))
        .contains("newByteChannel", "FileOutputStream", "RandomAccessFile");
    assertThat(unfenced).noneMatch(e -> e.getString("key").endsWith("/fenced"));

    assertThat(events)
        .filteredOn(e -> fence.equals(stringOrNull(e, "fenceName")))
        .extracting(e -> e.getEventType().getName())
        .as("the agent's core records the fenced write's acquire and hold")
        .contains("writerfence.Acquire", "writerfence.Hold");
  }

  private static String stringOrNull(RecordedEvent e, String field) {
    return e.hasField(field) ? e.getString(field) : null;
  }
}
