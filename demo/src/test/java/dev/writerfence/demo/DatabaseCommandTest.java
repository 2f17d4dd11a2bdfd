package dev.writerfence.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.WriterFence;
import dev.writerfence.cli.Cli;
import dev.writerfence.testing.CatalogSnapshot;
import dev.writerfence.testing.EmbeddedDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;

/** {@code database}: a throwaway server a newcomer can point the agent and the samples at. */
class DatabaseCommandTest {

  @Test
  void runsAServerWithTheContractInstalledUntilStoppedAndThenItIsGone() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    CommandLine cli = DemoCli.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    DatabaseCommand command = cli.getSubcommands().get("database").getCommand();
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(() -> cli.execute("database", "--port", "" + port));

    String url = awaitUrl(out, exit);
    assertThat(url).isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    ds.setUser("postgres");
    WriterFence fence = WriterFence.builder(ds).withoutRenewal().build();
    FenceLease lease =
        fence
            .tryAcquire(FenceRequest.builder("corpus").holderLabel("database-test").build())
            .orElseThrow();
    assertThat(lease.fencingToken()).isEqualTo(FencingTokens.first(1));
    assertThat(fence.release(lease)).isTrue();
    fence.close();

    command.stop.countDown();
    assertThat(exit.get(60, TimeUnit.SECONDS)).isZero();
    assertThatThrownBy(() -> connect(url)).isInstanceOf(SQLException.class);
  }

  @Test
  void aPortHeldByAnotherPostgresqlIsRefusedNamingItAndThatServerIsLeftAlone() throws Exception {
    EmbeddedDatabase other = EmbeddedDatabase.get();
    String before = CatalogSnapshot.of(other, "writer_fence");
    String err = refusedOn(other.port());

    assertThat(err)
        .contains("127.0.0.1:" + other.port() + " is held by another PostgreSQL")
        .contains(other.queryValue(String.class, "SELECT current_setting('data_directory')"))
        .contains("nothing was started or installed: choose a free port with --port");
    assertThat(CatalogSnapshot.of(other, "writer_fence"))
        .as("no contract installed on the other server")
        .isEqualTo(before);
  }

  @Test
  void aPortHeldByAProcessThatNeverSpeaksPostgresqlIsRefusedNotWaitedOn() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      // Accepts and never answers, as a stuck or foreign service would.
      Thread acceptor =
          new Thread(
              () -> {
                List<Socket> held = new ArrayList<>();
                try {
                  while (true) {
                    held.add(silent.accept());
                  }
                } catch (IOException closed) {
                  held.forEach(DatabaseCommandTest::closeQuietly);
                }
              },
              "silent-listener");
      acceptor.setDaemon(true);
      acceptor.start();
      String err = refusedOn(silent.getLocalPort());

      assertThat(err)
          .contains("127.0.0.1:" + silent.getLocalPort() + " is held by another process")
          .contains("nothing was started or installed: choose a free port with --port");
    }
  }

  /**
   * Runs {@code database --port PORT}, which must end by itself with exit status 1 and no URL.
   *
   * @return what it printed on standard error
   */
  private static String refusedOn(int port) throws Exception {
    CommandLine cli = DemoCli.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    DatabaseCommand command = cli.getSubcommands().get("database").getCommand();
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(() -> cli.execute("database", "--port", "" + port));
    int code;
    try {
      code = exit.get(120, TimeUnit.SECONDS);
    } finally {
      command.stop.countDown(); // were it to run (handing out another server), end it
    }
    assertThat(code).as(out + "" + err).isEqualTo(1);
    assertThat(out.toString()).doesNotContain("datasource.url");
    return err.toString();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // the test is over
    }
  }

  @Test
  void aPortOutOfRangeIsNamed() {
    Cli.Run run = Cli.runOn(DemoCli.commandLine(), "database", "--port", "70000");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--port 70000 is not allowed: 1 to 65535");
  }

  private static String awaitUrl(StringWriter out, CompletableFuture<Integer> exit)
      throws Exception {
    Pattern url = Pattern.compile("datasource\\.url=(\\S+)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      Matcher m = url.matcher(out.toString());
      if (m.find()) {
        return m.group(1);
      }
      if (exit.isDone()) {
        throw new AssertionError("the command ended early with " + exit.get() + ": " + out);
      }
      Thread.onSpinWait();
      Thread.sleep(50);
    }
    throw new AssertionError("no datasource.url line within 120 s: " + out);
  }

  private static void connect(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null)) {
      c.isValid(1);
    }
  }
}
