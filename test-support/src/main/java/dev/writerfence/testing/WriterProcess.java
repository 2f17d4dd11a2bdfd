package dev.writerfence.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A writer in a process of its own, for tests that need real separate JVMs. Run it with {@link
 * #fork}; it talks over standard input and output, one line at a time, and prints {@code ready}
 * once it can act at once.
 *
 * <ul>
 *   <li>{@code serve}: answers commands {@code try NAME LABEL TTL_SECONDS} with {@code acquired
 *       TOKEN} or {@code busy}, {@code release NAME} with {@code released true|false}, and ends on
 *       {@code exit}.
 *   <li>{@code burst NAME THREADS}: on {@code go}, every thread tries once to acquire NAME at the
 *       same moment; prints one {@code result acquired TOKEN}, {@code result busy} or {@code result
 *       failed ...} line per thread; on {@code release} releases what it won, prints {@code done}
 *       and ends.
 *   <li>{@code hammer OPENER STORE_URL NAME THREADS MILLIS TABLE WRITER} (started by {@link
 *       #forkHammer}): opens the store with the {@link LeaseStoreOpener} class OPENER at STORE_URL;
 *       on {@code go}, runs {@link Hammer} for MILLIS, recording into TABLE of the process's own
 *       database; prints {@code done SECTIONS BUSY FAILURES} and ends.
 * </ul>
 */
public final class WriterProcess {
  private static final Duration TTL = Duration.ofSeconds(30);

  private WriterProcess() {}

  /**
   * Starts a writer process on the embedded database of this JVM and waits until it is ready.
   *
   * @param db the database
   * @param schema the contract's schema
   * @param command {@code serve}, {@code burst} or {@code hammer}, then its arguments
   * @return the ready process
   */
  public static ForkedJvm fork(EmbeddedDatabase db, String schema, String... command) {
    List<String> args = new ArrayList<>(List.of(db.jdbcUrl(), schema));
    args.addAll(List.of(command));
    ForkedJvm jvm = ForkedJvm.start(WriterProcess.class, args.toArray(String[]::new));
    try {
      jvm.awaitLine("ready", Duration.ofSeconds(60));
    } catch (AssertionError e) {
      jvm.close();
      throw e;
    }
    return jvm;
  }

  /**
   * Starts a hammering writer process and waits until it is ready; send it {@code go}.
   *
   * @param opener opens the store under test in the process
   * @param storeUrl where the store's database is
   * @param record the database of the record
   * @param table the record's table there
   * @param fenceName the fence name every thread contends for
   * @param threads how many threads
   * @param duration how long they keep entering
   * @param writer names the process in the record
   * @return the ready process
   */
  public static ForkedJvm forkHammer(
      Class<? extends LeaseStoreOpener> opener,
      String storeUrl,
      EmbeddedDatabase record,
      String table,
      String fenceName,
      int threads,
      Duration duration,
      String writer) {
    return fork(
        record,
        FenceSchema.DEFAULT_SCHEMA,
        "hammer",
        opener.getName(),
        storeUrl,
        fenceName,
        String.valueOf(threads),
        String.valueOf(duration.toMillis()),
        table,
        writer);
  }

  /**
   * One try to acquire, as every writer of a burst makes it.
   *
   * @param fence the fence
   * @param fenceName the name
   * @param label the holder label
   * @param won where a won lease is put, to be released later
   * @return {@code acquired TOKEN}, {@code busy} or {@code failed ...}
   */
  public static String tryOnce(
      WriterFence fence, String fenceName, String label, Queue<FenceLease> won) {
    try {
      Optional<FenceLease> lease =
          fence.tryAcquire(FenceRequest.builder(fenceName).holderLabel(label).ttl(TTL).build());
      lease.ifPresent(won::add);
      return lease.map(l -> "acquired " + l.fencingToken()).orElse("busy");
    } catch (RuntimeException e) {
      return "failed " + e;
    }
  }

  /**
   * @param args JDBC URL, schema, command and its arguments
   */
  public static void main(String[] args) throws Exception {
    String url = args[0];
    String schema = args[1];
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String label = "pid-" + ProcessHandle.current().pid();
    switch (args[2]) {
      case "serve" -> serve(url, schema, in);
      case "burst" -> burst(url, schema, args[3], Integer.parseInt(args[4]), label, in);
      case "hammer" ->
          hammer(
              url,
              args[3],
              args[4],
              args[5],
              Integer.parseInt(args[6]),
              Duration.ofMillis(Long.parseLong(args[7])),
              args[8],
              args[9] + "@" + label,
              in);
      default -> throw new IllegalArgumentException("unknown command " + args[2]);
    }
    System.exit(0);
  }

  private static void serve(String url, String schema, BufferedReader in) throws IOException {
    WriterFence fence = WriterFence.builder(unpooled(url)).schema(schema).build();
    fence.status("warm-up"); // loads the driver and opens one connection before "ready"
    Map<String, FenceLease> held = new HashMap<>();
    say("ready");
    String line;
    while ((line = in.readLine()) != null && !line.equals("exit")) {
      String[] words = line.split(" ");
      if (words[0].equals("try")) {
        Optional<FenceLease> lease =
            fence.tryAcquire(
                FenceRequest.builder(words[1])
                    .holderLabel(words[2])
                    .ttl(Duration.ofSeconds(Long.parseLong(words[3])))
                    .build());
        lease.ifPresent(l -> held.put(words[1], l));
        say(lease.map(l -> "acquired " + l.fencingToken()).orElse("busy"));
      } else if (words[0].equals("release")) {
        FenceLease lease = held.remove(words[1]);
        say("released " + (lease != null && fence.release(lease)));
      } else {
        say("unknown " + line);
      }
    }
  }

  private static void burst(
      String url, String schema, String fenceName, int threads, String label, BufferedReader in)
      throws Exception {
    try (HikariDataSource pool = Pools.warmPool(url, "postgres", threads)) {
      WriterFence fence = WriterFence.builder(pool).schema(schema).build();
      Queue<FenceLease> won = new ConcurrentLinkedQueue<>();
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService executor = Executors.newFixedThreadPool(threads);
      List<Future<String>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String who = label + "/" + t;
        results.add(
            executor.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return tryOnce(fence, fenceName, who, won);
                }));
      }
      ready.await();
      say("ready");
      awaitCommand(in, "go");
      go.countDown();
      for (Future<String> result : results) {
        say("result " + result.get());
      }
      executor.shutdown();
      awaitCommand(in, "release");
      won.forEach(fence::release);
      say("done");
    }
  }

  private static void hammer(
      String recordUrl,
      String opener,
      String storeUrl,
      String fenceName,
      int threads,
      Duration duration,
      String table,
      String writer,
      BufferedReader in)
      throws Exception {
    LeaseStore store =
        Class.forName(opener)
            .asSubclass(LeaseStoreOpener.class)
            .getConstructor()
            .newInstance()
            .open(storeUrl, threads);
    WriterFence fence = WriterFence.builder(store).build();
    CriticalSections record = new CriticalSections(unpooled(recordUrl), table);
    say("ready");
    awaitCommand(in, "go");
    Hammer.Outcome outcome = Hammer.run(fence, fenceName, record, writer, threads, duration);
    outcome.failures().forEach(Throwable::printStackTrace);
    say("done " + outcome.sections() + " " + outcome.busy() + " " + outcome.failures().size());
  }

  /**
   * @param url a JDBC URL
   * @return an unpooled data source of the superuser there
   */
  public static PGSimpleDataSource unpooled(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    ds.setUser("postgres");
    return ds;
  }

  /**
   * Reads standard input up to a line that is the command.
   *
   * @param in standard input
   * @param command the line to wait for
   * @throws IOException when the input ends first
   */
  public static void awaitCommand(BufferedReader in, String command) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals(command)) {
        return;
      }
    }
    throw new IOException("standard input closed before '" + command + "'");
  }

  /**
   * Prints a line to standard output and flushes it, one line at a time.
   *
   * @param line the line
   */
  public static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
