package dev.writerfence.store.lease;

import static dev.writerfence.testing.WriterProcess.say;

import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import dev.writerfence.testing.WriterProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * A writer process of its own for the queue's cross-process tests: one {@link PgLeaseStore} on an
 * unpooled DataSource. Arguments: JDBC URL, schema, fence name, holder label, priority, ticket
 * lapse in seconds, and optionally a head lapse in milliseconds (its polls then say it, contract
 * version 5; without it they do not). Commands, one per line on standard input:
 *
 * <ul>
 *   <li>{@code wait}: polls {@code acquireInTurn} every 20 ms under one ticket; prints {@code
 *       queued <place>} after the first poll (the ticket is in the database then) and {@code won
 *       <fencing token> <acquired at>} when granted;
 *   <li>{@code hold <ttl seconds>}: one plain acquire; prints {@code held <fencing token> <expires
 *       at>} or {@code busy};
 *   <li>{@code release}: releases what it holds, prints {@code released <true|false>} and exits.
 * </ul>
 */
public final class QueuedWriterProcess {
  private static final Duration TTL = Duration.ofSeconds(30);

  private QueuedWriterProcess() {}

  public static void main(String[] args) throws Exception {
    PgLeaseStore store =
        new PgLeaseStore(WriterProcess.unpooled(args[0]), args[1], Duration.ofSeconds(10));
    Ticket ticket =
        new Ticket(
            args[2],
            UUID.randomUUID(),
            args[3],
            Integer.parseInt(args[4]),
            Duration.ofSeconds(Integer.parseInt(args[5])));
    Duration headLapse = args.length > 6 ? Duration.ofMillis(Long.parseLong(args[6])) : null;
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    say("ready");
    StoreLease held = null;
    String line;
    while ((line = in.readLine()) != null) {
      String[] command = line.split(" ");
      switch (command[0]) {
        case "wait" -> {
          Turn turn = poll(store, ticket, headLapse);
          say("queued " + turn.place());
          while (!turn.acquired()) {
            Thread.sleep(20);
            turn = poll(store, ticket, headLapse);
          }
          held = turn.lease().orElseThrow();
          say("won " + held.fencingToken() + " " + held.acquiredAt());
        }
        case "hold" -> {
          held =
              store
                  .acquire(
                      ticket.fenceName(),
                      UUID.randomUUID(),
                      ticket.holderLabel(),
                      Duration.ofSeconds(Integer.parseInt(command[1])))
                  .orElse(null);
          say(held == null ? "busy" : "held " + held.fencingToken() + " " + held.expiresAt());
        }
        case "release" -> {
          say("released " + (held != null && held.release()));
          return;
        }
        default -> say("unknown command " + line);
      }
    }
  }

  private static Turn poll(PgLeaseStore store, Ticket ticket, Duration headLapse) {
    return headLapse == null
        ? store.acquireInTurn(ticket, UUID.randomUUID(), TTL)
        : store.acquireInTurn(ticket, UUID.randomUUID(), TTL, headLapse);
  }
}
