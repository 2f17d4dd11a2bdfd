package dev.writerfence.samples.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FencingTokens;
import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.SectionEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the AspectJ sample for real: woven at compile time, against an embedded PostgreSQL. */
class UploadSampleTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @Test
  void concurrentUploadersNeverOverlapAndStampIncreasingFencingTokens(@TempDir Path root)
      throws Exception {
    String bucket = "photos-" + UUID.randomUUID();
    int uploaders = 2;
    int batches = 10;

    UploadSample.main(
        new String[] {
          db.jdbcUrl() + "?user=postgres",
          root.toString(),
          bucket,
          Integer.toString(uploaders),
          Integer.toString(batches)
        });

    // The journal, checked by the project's one checker: batches that never overlap, with fencing
    // tokens that strictly increase.
    Path dir = root.resolve(bucket);
    List<String> journal =
        Files.readAllLines(dir.resolve(BucketUploader.JOURNAL), StandardCharsets.UTF_8);
    assertThat(journal).hasSize(2 * uploaders * batches);
    List<Section> sections =
        SectionEvents.sections(journal.stream().map(UploadSampleTest::event).toList());
    assertThat(SectionChecker.check(sections).violations()).isEmpty();
    assertThat(sections.stream().map(Section::writer).distinct())
        .as("every uploader got its turns")
        .hasSize(uploaders);
    long previous = sections.get(sections.size() - 1).fencingToken();

    // Every object carries the token of the last batch, which overwrote all of them.
    for (String part : List.of("part-0", "part-1", "part-2")) {
      assertThat(BucketUploader.fencingTokenOf(dir.resolve(part))).isEqualTo(previous);
    }
    // The tokens are the database's: the lease row is free and its counter stopped there.
    assertThat(leaseRow("bucket:" + bucket)).isEqualTo(previous + " free");
    assertThat(UploadSample.Report.read(dir))
        .isEqualTo(new UploadSample.Report(uploaders * batches, previous));
  }

  @Test
  void aWriteWithAnOlderFencingTokenIsRefusedAndTheLeaseStillReleased(@TempDir Path root)
      throws Exception {
    ProcessFence.set(WriterFence.builder(db.dataSource()).build());
    String bucket = "stale-" + UUID.randomUUID();
    Path dir = Files.createDirectories(root.resolve(bucket));
    // A newer writer's object, as if it had written under a lease of a later timeline.
    long newer = FencingTokens.first(2);
    Files.writeString(dir.resolve("part-0"), "fencing-token: " + newer + "\nnewer data\n");
    BucketUploader uploader = new BucketUploader(root);

    assertThatThrownBy(() -> uploader.upload(bucket, Map.of("part-0", "older data\n")))
        .isInstanceOf(BucketUploader.StaleWriteException.class)
        .hasMessageContaining("fencing token " + newer);

    assertThat(Files.readString(dir.resolve("part-0"))).contains("newer data");
    assertThat(leaseRow("bucket:" + bucket)).isEqualTo(FencingTokens.first(1) + " free");
  }

  @Test
  void aNullBucketIsRefusedBeforeAnyAcquire(@TempDir Path root) throws Exception {
    ProcessFence.set(WriterFence.builder(db.dataSource()).build());
    BucketUploader uploader = new BucketUploader(root);

    assertThatThrownBy(() -> uploader.upload(null, Map.of("part-0", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket:{0}");
    assertThat(leaseRow("bucket:null")).isEqualTo("none");
  }

  /** {@code "<fencing token> free|held"}, or {@code "none"}, read as the table's owner. */
  private String leaseRow(String fenceName) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT fencing_token, holder_token IS NULL FROM writer_fence.lease"
                    + " WHERE fence_name = ?")) {
      st.setString(1, fenceName);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getLong(1) + (rs.getBoolean(2) ? " free" : " held") : "none";
      }
    }
  }

  /** A journal line, {@code begin|end TOKEN THREAD}. */
  private static SectionEvents.Event event(String line) {
    String[] f = line.split(" ");
    assertThat(f).as("journal line %s", line).hasSize(3);
    assertThat(f[0]).as("journal line %s", line).isIn("begin", "end");
    return new SectionEvents.Event(f[0].equals("begin"), f[2], Long.parseLong(f[1]), "");
  }
}
