package dev.writerfence.cli;

import dev.writerfence.internal.FenceArguments;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence release --force NAME}: the operator's escape hatch for a wedged lease (a
 * holder that died without releasing, with a long TTL). There is no force-release function in the
 * SQL contract (ADR 3): this command clears the row as the owner of the lease table, after showing
 * the holder and asking. It frees the row as {@code release} does, keeping the row and its
 * fencing-token counter, so the next acquire gets a higher fencing token.
 *
 * <p>Exit status: 0 cleared, or the fence was free already; 1 not cleared (the role is not the
 * owner, the answer was not yes, the name is unknown, or the lease changed while the question was
 * open); 2 bad input.
 */
@Command(
    name = "release",
    mixinStandardHelpOptions = true,
    description = {
      "Clear a wedged lease (operators only): shows the holder and asks before clearing.",
      "Writers release their own leases with the holder token their acquire gave them; this"
          + " command is for a holder that is gone. Connect as the role that owns the lease table."
          + " The row and its fencing-token counter stay, so the next acquire gets a higher"
          + " fencing token. A holder that is still running loses its lease at its next renewal."
    })
public final class ReleaseCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @ParentCommand WriterFenceCli parent;

  @Mixin DatabaseOptions.RequiredUrl db;

  @Parameters(index = "0", paramLabel = "NAME", description = "the fence name")
  String fenceName;

  @Option(
      names = "--force",
      description = "required: clear the lease whoever holds it (as the owner of the lease table)")
  boolean force;

  @Option(names = "--yes", description = "do not ask (for scripts)")
  boolean yes;

  @Override
  public Integer call() throws SQLException, IOException {
    if (!force) {
      throw new ParameterException(
          spec.commandLine(),
          "release needs --force: writers release their own leases (WriterFence.release, or SQL"
              + " release(fence_name, holder_token) with the token their acquire minted);"
              + " operators clear a dead holder's lease with 'release --force NAME', connected as"
              + " the owner of the lease table");
    }
    try {
      FenceArguments.fenceName(fenceName);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    db.validate();
    PrintWriter out = spec.commandLine().getOut();
    String table = db.schema() + ".lease"; // a checked identifier, safe in a statement
    try (Connection c = db.dataSource().getConnection()) {
      checkOwner(c, db);

      Lease lease = read(c, table, fenceName);
      if (lease == null) {
        throw new IllegalStateException(
            "there is no fence named "
                + quote(fenceName)
                + " in schema '"
                + db.schema()
                + "'; nothing changed (./writer-fence status lists the fences)");
      }
      if (lease.state().equals("free")) {
        out.printf(
            "fence %s is free (last holder %s, fencing token %d, released at %s); nothing to"
                + " clear%n",
            quote(fenceName),
            label(lease.holderLabel()),
            lease.fencingToken(),
            StatusCommand.time(lease.expiresAt()));
        out.flush();
        return 0;
      }
      show(out, lease);
      if (!yes && !confirmed(out, lease)) {
        out.println("not cleared; nothing changed");
        out.flush();
        return 1;
      }
      if (!clear(c, table, lease)) {
        Lease now = read(c, table, fenceName);
        out.printf(
            "not cleared: the lease changed after it was shown (now: holder %s, fencing token %d,"
                + " state %s); nothing changed. Run the command again to see it.%n",
            label(now.holderLabel()), now.fencingToken(), now.state());
        out.flush();
        return 1;
      }
      out.printf(
          "cleared the lease on %s held by %s (fencing token %d); the fence is free and its next"
              + " acquire gets a fencing token above %d%n",
          quote(fenceName), label(lease.holderLabel()), lease.fencingToken(), lease.fencingToken());
      out.flush();
      return 0;
    }
  }

  /**
   * The lease row as the owner sees it.
   *
   * @param fenceName the fence name
   * @param holderLabel the holder's label, or {@code null}
   * @param fencingToken the fencing token of the current or last lease
   * @param acquiredAt when it was acquired
   * @param expiresAt when it expires or expired (for a free row, when it was released)
   * @param secondsLeft seconds until expiry, 0 when expired or free
   * @param state {@code held}, {@code expired} or {@code free}
   * @param databaseTime the database clock when the row was read
   */
  record Lease(
      String fenceName,
      String holderLabel,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt,
      BigDecimal secondsLeft,
      String state,
      Instant databaseTime) {}

  /**
   * Refuses unless the connecting role owns the lease table (or has its privileges, as a member of
   * the owner role or a superuser): only the owner can read and change the rows (row-level security
   * is on, with no policies).
   */
  private static void checkOwner(Connection c, DatabaseOptions db) throws SQLException {
    String sql =
        "SELECT current_user, pg_get_userbyid(c.relowner),"
            + " pg_has_role(current_user, c.relowner, 'USAGE')"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE n.nspname = ? AND c.relname = 'lease' AND c.relkind IN ('r', 'p')";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, db.schema());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException(StatusCommand.notInstalled(db));
        }
        String role = rs.getString(1);
        String owner = rs.getString(2);
        if (!rs.getBoolean(3)) {
          throw new IllegalStateException(
              String.format(
                  "role '%s' does not own %s.lease (its owner is '%s'); nothing changed. Only the"
                      + " owner can clear a lease: connect as '%s' (--user %s).",
                  role, db.schema(), owner, owner, owner));
        }
      }
    }
  }

  private static Lease read(Connection c, String table, String fenceName) throws SQLException {
    String sql =
        "SELECT holder_label, fencing_token, acquired_at, expires_at,"
            + " CASE WHEN holder_token IS NOT NULL AND expires_at > t.now"
            + " THEN round(extract(epoch FROM expires_at - t.now), 3) ELSE 0 END AS seconds_left,"
            + " CASE WHEN holder_token IS NULL THEN 'free' WHEN expires_at > t.now THEN 'held'"
            + " ELSE 'expired' END AS state, t.now"
            + " FROM (SELECT clock_timestamp() AS now) t, "
            + table
            + " WHERE fence_name = ?";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setQueryTimeout(10);
      ps.setString(1, fenceName);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Lease(
            fenceName,
            rs.getString("holder_label"),
            rs.getLong("fencing_token"),
            rs.getObject("acquired_at", OffsetDateTime.class).toInstant(),
            rs.getObject("expires_at", OffsetDateTime.class).toInstant(),
            rs.getBigDecimal("seconds_left"),
            rs.getString("state"),
            rs.getObject("now", OffsetDateTime.class).toInstant());
      }
    }
  }

  private static void show(PrintWriter out, Lease lease) {
    BigDecimal age =
        BigDecimal.valueOf(Duration.between(lease.acquiredAt(), lease.databaseTime()).toMillis())
            .movePointLeft(3);
    TextTable t = new TextTable("", "");
    t.row("fence name:", lease.fenceName());
    t.row("holder label:", lease.holderLabel() == null ? "(none)" : lease.holderLabel());
    t.row("fencing token:", lease.fencingToken());
    t.row(
        "acquired:",
        StatusCommand.time(lease.acquiredAt()) + " (" + StatusCommand.age(age) + " ago)");
    t.row(
        "expires:",
        StatusCommand.time(lease.expiresAt())
            + (lease.state().equals("held")
                ? " (in " + lease.secondsLeft().setScale(1, RoundingMode.HALF_UP) + " s)"
                : " (expired: the next acquire takes it over anyway)"));
    t.row("state:", lease.state());
    StringWriter table = new StringWriter();
    t.print(new PrintWriter(table));
    // the header row is empty: leave it out
    table.toString().lines().skip(1).forEach(out::println);
  }

  /** Asks on the command's input; only {@code y} or {@code yes} is yes. */
  private boolean confirmed(PrintWriter out, Lease lease) throws IOException {
    out.printf(
        "Clear the lease on %s held by %s (fencing token %d)? [y/N] ",
        quote(lease.fenceName()), label(lease.holderLabel()), lease.fencingToken());
    out.flush();
    String answer = parent.answers().readLine();
    if (answer == null) {
      out.println();
      out.println("no answer (end of input); use --yes in scripts");
      return false;
    }
    String a = answer.strip().toLowerCase(Locale.ROOT);
    return a.equals("y") || a.equals("yes");
  }

  /**
   * Frees the row as {@code release} does: no holder token, expiry at the latest now, fencing token
   * kept. Only the lease that was shown is cleared: a row whose fencing token changed meanwhile (a
   * takeover, a release and a new acquire) is left alone.
   *
   * @return whether the lease that was shown was cleared
   */
  private static boolean clear(Connection c, String table, Lease lease) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      try (Statement st = c.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '5s'");
      }
      int updated;
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE "
                  + table
                  + " SET holder_token = NULL, expires_at = least(expires_at, clock_timestamp())"
                  + " WHERE fence_name = ? AND fencing_token = ? AND holder_token IS NOT NULL")) {
        ps.setQueryTimeout(10);
        ps.setString(1, lease.fenceName());
        ps.setLong(2, lease.fencingToken());
        updated = ps.executeUpdate();
      }
      c.commit();
      return updated == 1;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  private static String label(String holderLabel) {
    return holderLabel == null ? "(no label)" : quote(holderLabel);
  }

  private static String quote(String s) {
    return "'" + s + "'";
  }
}
