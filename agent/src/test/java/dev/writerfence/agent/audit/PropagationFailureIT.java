package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.example.clients.BrokenCarryApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's propagation advice never throws into the host: with carrying a hold broken on purpose
 * ({@link BrokenCarryApp}, in its own JVM with the real agent jar under audit enforce), the host's
 * {@code FutureTask.run}, {@code ThreadPoolExecutor.execute} and {@code Thread.start} still run the
 * task and its result comes back; the task ran without the hold (none of the carried holds, not
 * even the valid one restored before the broken one failed), so its file write is refused: it fails
 * closed.
 */
class PropagationFailureIT {
  @TempDir Path dir;

  @Test
  void aTaskWhoseHoldCannotBeCarriedRunsUnfencedAndItsWriteIsRefused() throws Exception {
    Path volume = Files.createDirectory(dir.resolve("volume"));
    ClientApp app =
        ClientApp.run(
            BrokenCarryApp.class.getName(),
            dir.resolve("report.json"),
            List.of("audit.mode=enforce", "audit.paths=" + volume),
            EmbeddedDatabase.get().jdbcUrl(),
            FenceNames.random("broken-carry"),
            volume.toString());

    assertThat(app.output())
        .as(app.errors())
        .containsExactly(
            "carried wrote",
            "submit result refused",
            "execute result refused",
            "thread result refused",
            "done");
    assertThat(volume.resolve("carried")).as("the real hold alone is carried").exists();
    for (String refused : List.of("submit", "execute", "thread")) {
      assertThat(volume.resolve(refused)).as(refused).doesNotExist();
    }
    // One call site (the app's write method): one row, its key sample naming the three files.
    assertThat(app.writes()).hasSize(1);
    assertThat(app.writes().get(0).get("count").asLong()).isEqualTo(3);
    assertThat(app.writes().get(0).get("refused").asLong()).isEqualTo(3);
    List<String> keys = new ArrayList<>();
    app.writes().get(0).get("keys").forEach(k -> keys.add(k.asText()));
    assertThat(keys)
        .containsExactlyInAnyOrder(
            volume.resolve("submit").toString(),
            volume.resolve("execute").toString(),
            volume.resolve("thread").toString());
  }
}
