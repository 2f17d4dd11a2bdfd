package dev.writerfence.aspectj;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;

/**
 * The fence the aspect uses in this test JVM: one embedded PostgreSQL, one {@link WriterFence} set
 * as {@link ProcessFence#set default}, and a listener that counts what it did. Every test uses
 * fence names of its own ({@link #uniqueId}), so tests never depend on a fixed name.
 */
final class TestFence {
  static final RecordingListener EVENTS = new RecordingListener();
  private static WriterFence fence;
  private static WriterFence otherWriter;

  private TestFence() {}

  /**
   * @return a second fence on the same database, as another process's writer would have; its
   *     acquires and releases are not counted in {@link #EVENTS}
   */
  static synchronized WriterFence otherWriter() {
    if (otherWriter == null) {
      otherWriter =
          WriterFence.builder(EmbeddedDatabase.get().dataSource())
              .defaultHolderLabel("other-writer")
              .build();
    }
    return otherWriter;
  }

  /**
   * @return the fence, installed as the process default
   */
  static synchronized WriterFence install() {
    if (fence == null) {
      fence =
          WriterFence.builder(EmbeddedDatabase.get().dataSource())
              .defaultTtl(Duration.ofSeconds(30))
              .defaultHolderLabel("aspectj-test")
              .listener(EVENTS)
              .build();
    }
    ProcessFence.set(fence);
    return fence;
  }

  /**
   * @param prefix what the id is for
   * @return a bucket id no other test uses
   */
  static String uniqueId(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }

  /**
   * @param likePattern a SQL LIKE pattern
   * @return how many lease rows have a fence name matching it
   */
  static long leaseRows(String likePattern) {
    try (Connection c = EmbeddedDatabase.get().dataSource().getConnection();
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM writer_fence.lease WHERE fence_name LIKE ?")) {
      st.setString(1, likePattern);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The lease row as the server has it, read as the table's owner.
   *
   * @param fenceName a fence name
   * @return its row, or empty when the name was never acquired
   */
  static Optional<LeaseRow> leaseRow(String fenceName) {
    try (Connection c = EmbeddedDatabase.get().dataSource().getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT fencing_token, holder_token IS NOT NULL, holder_label"
                    + " FROM writer_fence.lease WHERE fence_name = ?")) {
      st.setString(1, fenceName);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new LeaseRow(rs.getLong(1), rs.getBoolean(2), rs.getString(3)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Fails unless ajc wove the class at compile time: woven classes carry {@code ajc$} members.
   *
   * @param type a class that should be woven
   */
  static void assertWovenAtCompileTime(Class<?> type) {
    boolean woven =
        Arrays.stream(type.getDeclaredFields()).anyMatch(f -> f.getName().startsWith("ajc$"))
            || Arrays.stream(type.getDeclaredMethods())
                .anyMatch(
                    m -> m.getName().startsWith("ajc$") || m.getName().contains("_aroundBody"));
    if (!woven) {
      throw new AssertionError(
          type.getName() + " was not woven by ajc: check the aspectj-maven-plugin test-compile");
    }
  }

  /**
   * One row of {@code writer_fence.lease}.
   *
   * @param fencingToken the last fencing token issued for the name
   * @param held whether a holder token is set
   * @param holderLabel the last holder's label
   */
  record LeaseRow(long fencingToken, boolean held, String holderLabel) {}
}
