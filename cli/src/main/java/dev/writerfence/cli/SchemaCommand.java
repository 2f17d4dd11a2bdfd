package dev.writerfence.cli;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.LeaseRpcCompatibility;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code writer-fence schema install} and {@code schema verify}: the SQL contract. */
@Command(
    name = "schema",
    mixinStandardHelpOptions = true,
    description = "Manage the SQL contract (schema, lease table, functions, status view).",
    subcommands = {SchemaCommand.Install.class, SchemaVerify.class})
public final class SchemaCommand implements Runnable {
  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "a subcommand is required: install or verify");
  }

  /** {@code schema install}: idempotent. */
  @Command(
      name = "install",
      mixinStandardHelpOptions = true,
      description = {
        "Install the SQL contract, or bring it up to date. Idempotent: lease rows and their"
            + " fencing tokens are kept.",
        "Refuses, changing nothing, a schema whose tables or functions under the contract's names"
            + " have another shape (each difference named), or a newer contract version.",
        "Connect as the role that is to own the lease table (only the owner can read it)."
      })
  static final class Install implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Mixin DatabaseOptions.RequiredUrl db;

    @Option(
        names = "--grant-to",
        paramLabel = "ROLE",
        description =
            "role the application connects as: it gets EXECUTE on the functions and SELECT on"
                + " the status view, nothing on the table (default: the installing role)")
    String grantTo;

    @Option(
        names = "--lease-rpc-fence-name",
        paramLabel = "FENCE",
        description =
            "also install the optional lease-RPC pair (public.corpus_writer_fence_lease_acquire"
                + " and _release) over this contract, for legs that call that pair; FENCE is the"
                + " fence name a caller that passes none gets (ADR 57)")
    String leaseRpcFenceName;

    @Override
    public Integer call() throws SQLException {
      db.validate();
      FenceSchema schema;
      LeaseRpcCompatibility leaseRpc;
      try {
        schema = FenceSchema.defaults().schema(db.schema()).grantTo(grantTo);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(), e.getMessage().replace("role '", "--grant-to '"));
      }
      try {
        leaseRpc =
            leaseRpcFenceName == null ? null : new LeaseRpcCompatibility(schema, leaseRpcFenceName);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(),
            "--lease-rpc-fence-name: " + e.getMessage().replaceFirst("^writer-fence: ", ""));
      }
      PrintWriter out = spec.commandLine().getOut();
      try (Connection c = db.dataSource().getConnection()) {
        boolean existed = tableExists(c, db.schema());
        int before = existed ? versionBefore(c, db.schema()) : 0;
        String who = currentUser(c);
        if (leaseRpc != null) {
          // Refuse before the contract is touched: a deployment's own pair is never replaced.
          LeaseRpcCompatibility.requireInstallable(c);
        }
        schema.install(c);
        int version = version(c, db.schema());
        String grantee = grantTo != null ? grantTo : who;
        if (existed && before > 0 && before < version) {
          out.printf(
              "upgraded the SQL contract in schema '%s' from version %d to %d; lease rows and"
                  + " fencing tokens kept%n",
              db.schema(), before, version);
        } else if (existed) {
          out.printf(
              "schema '%s' was already installed; re-applied the SQL contract version %d"
                  + " (functions, status view, grants); lease rows and fencing tokens kept%n",
              db.schema(), version);
        } else {
          out.printf(
              "installed the SQL contract version %d in schema '%s': table %s.lease, functions"
                  + " acquire, renew, release, view lease_status%n",
              version, db.schema(), db.schema());
        }
        out.printf(
            "owner: %s (the only role that can read the lease table); EXECUTE granted to: %s%n",
            who, grantee);
        if (leaseRpc != null) {
          Optional<String> replaced = leaseRpc.install(c);
          replaced.ifPresent(
              previous ->
                  out.printf(
                      "replaced the lease-RPC pair writer-fence had installed before (default"
                          + " fence name '%s'); legs that pass no fence name now use '%s'%n",
                      previous, leaseRpcFenceName));
          out.printf(
              "installed the lease-RPC pair public.corpus_writer_fence_lease_acquire and _release"
                  + " over schema '%s' (default fence name '%s'); EXECUTE granted to: %s%n",
              db.schema(), leaseRpcFenceName, grantee);
        }
      }
      out.flush();
      return 0;
    }

    private static boolean tableExists(Connection c, String schema) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
        ps.setString(1, schema + ".lease");
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getBoolean(1);
        }
      }
    }

    /** The version installed before, 0 when the schema has no schema_version(). */
    private static int versionBefore(Connection c, String schema) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement("SELECT to_regprocedure(?) IS NOT NULL")) {
        ps.setString(1, schema + ".schema_version()");
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (!rs.getBoolean(1)) {
            return 0;
          }
        }
      }
      return version(c, schema);
    }

    private static String currentUser(Connection c) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement("SELECT current_user");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }

    private static int version(Connection c, String schema) throws SQLException {
      // schema is a checked identifier ([a-z_][a-z0-9_]*), safe to put into the statement
      try (PreparedStatement ps = c.prepareStatement("SELECT " + schema + ".schema_version()");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
