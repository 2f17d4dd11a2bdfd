package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code status --watch} on embedded PostgreSQL: it shows the holder of the moment at each refresh,
 * stops after {@code --count} refreshes or when interrupted (what Ctrl-C's shutdown hook does), and
 * clears the screen only on a terminal.
 */
class StatusWatchTest {
  private static final Duration TTL = Duration.ofSeconds(60);

  private final EmbeddedDatabase db = EmbeddedDatabase.get();
  private final PgLeaseStore store =
      new PgLeaseStore(db.dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(10));
  private final String name = FenceNames.random("cli-watch");

  @Test
  void toAFileEachRefreshIsABlockUnderItsHeadingAndCountStopsIt() {
    StoreLease held = store.acquire(name, UUID.randomUUID(), "first", TTL).orElseThrow();
    try {
      Cli.Run run = status("--watch=0.1", "--count", "3");

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).doesNotContain("\033");
      assertThat(run.out().lines().filter(l -> l.startsWith("writer-fence status at ")))
          .hasSize(3)
          .allMatch(l -> l.contains(", every 0.1 s (refresh "))
          .last()
          .asString()
          .endsWith("(refresh 3)");
      assertThat(run.out().lines().filter(l -> l.startsWith(name + " ")))
          .hasSize(3)
          .allMatch(l -> l.contains(" first "));
    } finally {
      held.release();
    }
  }

  @Test
  void withJsonEachRefreshIsOneObjectPerLine() throws Exception {
    StoreLease held = store.acquire(name, UUID.randomUUID(), "json", TTL).orElseThrow();
    try {
      Cli.Run run = status("--json", "--watch", "0.1", "--count", "2");

      assertThat(run.exitCode()).as(run.err()).isZero();
      List<String> lines = run.out().lines().toList();
      assertThat(lines).hasSize(2);
      for (String line : lines) {
        JsonNode root = new ObjectMapper().readTree(line);
        assertThat(root.get("fences"))
            .anySatisfy(f -> assertThat(f.get("fence_name").asText()).isEqualTo(name));
      }
    } finally {
      held.release();
    }
  }

  @Test
  void aRunningWatchShowsTheNewHolderAndStopsWhenInterrupted() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread watching =
        new Thread(
            () ->
                exit.set(
                    WriterFenceCli.commandLine(System.in)
                        .setOut(new PrintWriter(out, true))
                        .setErr(new PrintWriter(err, true))
                        .execute(args("--watch", "0.1"))));
    StoreLease first = store.acquire(name, UUID.randomUUID(), "before", TTL).orElseThrow();
    watching.start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> holderRows(out).contains("before"));
      assertThat(first.release()).isTrue();
      StoreLease second = store.acquire(name, UUID.randomUUID(), "after", TTL).orElseThrow();
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> holderRows(out).contains("after"));
      } finally {
        second.release();
      }
    } finally {
      watching.interrupt();
      watching.join(Duration.ofSeconds(30).toMillis());
    }
    assertThat(watching.isAlive()).as("stopped by the interrupt").isFalse();
    assertThat(exit.get()).as(err.toString()).isZero();
  }

  @Test
  void onATerminalEachRefreshClearsTheScreenFirst() {
    StringWriter out = new StringWriter();
    AtomicInteger blocks = new AtomicInteger();

    int exit =
        new StatusWatch(0.1, 2, true, false)
            .run(
                new PrintWriter(out),
                new PrintWriter(new StringWriter()),
                o -> o.println("block " + blocks.incrementAndGet()));

    assertThat(exit).isZero();
    String[] screens = out.toString().split(Pattern.quote(StatusWatch.CLEAR), -1);
    assertThat(screens).as("each block starts on a cleared screen").hasSize(3);
    assertThat(screens[0]).isEmpty();
    assertThat(out.toString()).contains("(Ctrl-C stops)", "block 1", "block 2");
  }

  @Test
  void aFailedRefreshIsReportedAndTriedAgainAndBadValuesAreUsageErrors() {
    StringWriter err = new StringWriter();
    AtomicInteger calls = new AtomicInteger();

    int exit =
        new StatusWatch(0.1, 3, false, false)
            .run(
                new PrintWriter(new StringWriter()),
                new PrintWriter(err),
                o -> {
                  if (calls.incrementAndGet() == 2) {
                    throw new IllegalStateException("could not read x.lease_status");
                  }
                });

    assertThat(exit).as("the last refresh read").isZero();
    assertThat(calls).hasValue(3);
    assertThat(err.toString())
        .isEqualTo(
            "writer-fence status: could not read x.lease_status; trying again in 0.1 s"
                + System.lineSeparator());
    Cli.Run fast = status("--watch=0.01");
    Cli.Run countAlone = status("--count", "2");
    assertThat(fast.exitCode()).isEqualTo(2);
    assertThat(fast.err()).contains("--watch 0.01 is not allowed: seconds between refreshes, 0.1");
    assertThat(countAlone.exitCode()).isEqualTo(2);
    assertThat(countAlone.err()).contains("--count 2 is not allowed without --watch");
  }

  /** The fence's rows of every refresh so far, joined. */
  private String holderRows(StringWriter out) {
    return String.join("\n", out.toString().lines().filter(l -> l.startsWith(name + " ")).toList());
  }

  private Cli.Run status(String... more) {
    return Cli.run(args(more));
  }

  private String[] args(String... more) {
    List<String> args =
        new ArrayList<>(List.of("status", "--jdbc-url", db.jdbcUrl(), "--user", "postgres"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }
}
