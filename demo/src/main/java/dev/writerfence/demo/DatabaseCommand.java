package dev.writerfence.demo;

import dev.writerfence.schema.FenceSchema;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence database}: a throwaway PostgreSQL for trying the agent and the samples, the
 * same embedded server the demo runs ({@link DemoDatabase}), listening on 127.0.0.1 only, with the
 * SQL contract installed. It runs until the command is stopped (Ctrl-C); its data is deleted then.
 */
@Command(
    name = "database",
    mixinStandardHelpOptions = true,
    description = {
      "Run a throwaway PostgreSQL on 127.0.0.1 with the SQL contract installed, for trying the"
          + " agent and the samples; it runs until Ctrl-C and its data is deleted then.",
      "Not for production: use your own PostgreSQL there ('schema install')."
    })
public final class DatabaseCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "TCP port on 127.0.0.1, 1 to 65535 (default: ${DEFAULT-VALUE})",
      defaultValue = "5432")
  int port;

  /** Counted down when the command is to stop; the tests stop it this way. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws IOException, SQLException, InterruptedException {
    if (port < 1 || port > 65535) {
      throw new ParameterException(
          spec.commandLine(), "--port " + port + " is not allowed: 1 to 65535");
    }
    Path log = Files.createTempFile("writer-fence-database-", ".log");
    DemoDatabase pg;
    try {
      pg = DemoDatabase.embedded(log, port, DemoDatabase.DEFAULT_MAX_CONNECTIONS);
    } catch (DemoDatabase.PortTakenException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          "cannot start PostgreSQL on 127.0.0.1:"
              + port
              + " (is the port taken? choose another with --port); server log: "
              + log,
          e);
    }
    Thread closer = new Thread(() -> closeQuietly(pg), "writer-fence-database-stop");
    Runtime.getRuntime().addShutdownHook(closer);
    try {
      FenceSchema.defaults().install(pg.dataSource());
      String url = pg.jdbcUrl();
      PrintWriter out = spec.commandLine().getOut();
      out.println("PostgreSQL is running with the SQL contract installed (Ctrl-C stops it).");
      out.println("  datasource.url=" + url);
      out.println("  datasource.username=postgres");
      out.println("  (no password; server log: " + log + ")");
      out.flush();
      stop.await();
      return 0;
    } finally {
      if (Runtime.getRuntime().removeShutdownHook(closer)) {
        closeQuietly(pg);
      }
    }
  }

  private static void closeQuietly(DemoDatabase pg) {
    try {
      pg.close();
    } catch (IOException e) {
      System.err.println("writer-fence: stopping the database: " + e);
    }
  }
}
