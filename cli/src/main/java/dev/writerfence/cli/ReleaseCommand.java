package dev.writerfence.cli;

import dev.writerfence.LeaseStatus;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.store.lease.Clocked;
import dev.writerfence.store.lease.LeaseTableOwner;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;
import java.time.Duration;
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
 * SQL contract (ADR 3): this command clears the row as the owner of the lease table ({@link
 * LeaseTableOwner}), after showing the holder and asking. It frees the row as {@code release} does,
 * keeping the row and its fencing-token counter, so the next acquire gets a higher fencing token.
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
  /** How long one statement may take. */
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);

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
    try (LeaseTableOwner table =
        LeaseTableOwner.open(db.dataSource(), db.schema(), QUERY_TIMEOUT)) {
      checkOwner(table, db);

      Clocked<LeaseStatus> shown =
          table
              .row(fenceName)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "there is no fence named "
                              + quote(fenceName)
                              + " in schema '"
                              + db.schema()
                              + "'; nothing changed (./writer-fence status lists the fences)"));
      LeaseStatus lease = shown.value();
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
      show(out, shown);
      if (!yes && !confirmed(out, lease)) {
        out.println("not cleared; nothing changed");
        out.flush();
        return 1;
      }
      if (!table.clear(fenceName, lease.fencingToken())) {
        LeaseStatus now = table.row(fenceName).orElseThrow().value();
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
   * Refuses unless the connecting role owns the lease table (or has its privileges, as a member of
   * the owner role or a superuser): only the owner can read and change the rows (row-level security
   * is on, with no policies).
   */
  private static void checkOwner(LeaseTableOwner table, DatabaseOptions db) throws SQLException {
    LeaseTableOwner.Ownership found =
        table
            .ownership()
            .orElseThrow(() -> new IllegalStateException(StatusCommand.notInstalled(db)));
    if (!found.owns()) {
      String owner = found.owner();
      throw new IllegalStateException(
          String.format(
              "role '%s' does not own %s.lease (its owner is '%s'); nothing changed. Only the"
                  + " owner can clear a lease: connect as '%s' (--user %s).",
              found.role(), db.schema(), owner, owner, owner));
    }
  }

  private static void show(PrintWriter out, Clocked<LeaseStatus> shown) {
    LeaseStatus lease = shown.value();
    BigDecimal age =
        BigDecimal.valueOf(Duration.between(lease.acquiredAt(), shown.databaseTime()).toMillis())
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
  private boolean confirmed(PrintWriter out, LeaseStatus lease) throws IOException {
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

  private static String label(String holderLabel) {
    return holderLabel == null ? "(no label)" : quote(holderLabel);
  }

  private static String quote(String s) {
    return "'" + s + "'";
  }
}
