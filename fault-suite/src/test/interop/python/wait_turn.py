"""Waiting your turn for a writer-fence lease from Python: writer_fence.acquire_turn + LISTEN.

The same protocol the Java client follows (docs/sql-contract.md, "Waiting your turn"), with asyncpg
(Debian's python3-asyncpg). Copy wait_turn() and release(); the rest drives the test that proves a
Python writer and Java writers take turns in order (fault-suite's QueueTurnInteropTest).

    turn = await wait_turn(conn, "corpus", "nightly-walk")   # queued, woken by the release
    try:
        write(..., fencing_token=turn.token)                  # a Python int (64-bit bigint)
    finally:
        await release(conn, "corpus", turn)

The connection must reach PostgreSQL directly (not through PgBouncer in transaction mode, where
LISTEN hears nothing): there the waiter still gets its turn, but only at its safety-net polls.

Run as the test's leg:

  python3 wait_turn.py turns --port P --db D --user U --password W --holder H --fence F
      --rounds N --hold-ms M
    Prints "ready" once connected and waits for a line on stdin; then N times: read the database clock (ask), wait for the turn
    (read the clock once queued), read the clock (start), hold M ms, read the clock (end), release;
    prints one line per round, "section HOLDER TOKEN ASK QUEUED|- START END PLACE WOKEN(0|1)" (times
    in microseconds of the database clock), then "done".
"""
import asyncio
import json
import sys
import uuid
from dataclasses import dataclass

import asyncpg

CHANNEL = "writer_fence_release"  # a release that found waiters sends NOTIFY on it at commit


@dataclass
class Turn:
    token: int  # the fencing token: a 64-bit integer, compared as a number
    holder: uuid.UUID  # the holder token the lease was granted to; release with it
    place: int  # the ticket's place at the first poll (0: granted at once)
    woken: bool  # granted by the poll right after a release's notification


async def wait_turn(conn, fence, label, ttl_seconds=60, priority=0, lapse_seconds=5,
                    schema="writer_fence", timeout_seconds=120, on_queued=None):
    """Queues for the lease on `fence` and returns once it is granted.

    One waiter token for the whole wait, a new holder token per poll (docs/sql-contract.md). Between
    polls it sleeps until a release of this fence is notified, and at most a quarter of the lapse,
    so the ticket never lapses and a holder that died without releasing is noticed at that pace.
    Raises TimeoutError after timeout_seconds, leaving the queue. on_queued, when given, is awaited
    once with the place after the first poll found the lease busy (the ticket is taken by then).
    """
    waiter = uuid.uuid4()
    released = asyncio.Event()

    def heard(_conn, _pid, _channel, payload):
        # {"schema": ..., "fence_name": ...}; a Java listener's probe ({"probe": ...}) names none.
        try:
            note = json.loads(payload)
        except ValueError:
            return
        if note.get("fence_name") == fence and note.get("schema") == schema:
            released.set()

    poll = (
        "SELECT fencing_token, place FROM %s.acquire_turn($1, $2, $3, $4, $5, $6, $7)" % schema
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_seconds
    await conn.add_listener(CHANNEL, heard)  # LISTEN before the first poll: no release is missed
    try:
        first_place = None
        woken = False
        while True:
            released.clear()  # a notification from here on wakes the next wait at once
            holder = uuid.uuid4()
            row = await conn.fetchrow(
                poll, fence, holder, label, ttl_seconds, waiter, priority, lapse_seconds)
            if first_place is None:
                first_place = row["place"]
                if row["fencing_token"] is None and on_queued is not None:
                    await on_queued(first_place)
            if row["fencing_token"] is not None:
                return Turn(row["fencing_token"], holder, first_place, woken)
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError("no turn on %r within %s s" % (fence, timeout_seconds))
            try:
                await asyncio.wait_for(released.wait(), min(lapse_seconds / 4, left))
                woken = True
            except asyncio.TimeoutError:
                woken = False  # the safety-net poll: refreshes the ticket within its lapse
    except BaseException:
        await conn.execute("SELECT %s.leave_queue($1, $2)" % schema, fence, waiter)
        raise
    finally:
        await conn.remove_listener(CHANNEL, heard)


async def release(conn, fence, turn, schema="writer_fence"):
    """Releases the lease of `turn`; False when it was no longer held (expired or taken over)."""
    return await conn.fetchval("SELECT %s.release($1, $2)" % schema, fence, turn.holder)


async def clock_us(conn):
    """The database clock in microseconds since the epoch: every record time comes from it."""
    return await conn.fetchval(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")


def parse(argv):
    out = {"mode": argv[0]}
    for i in range(1, len(argv), 2):
        out[argv[i].lstrip("-")] = argv[i + 1]
    return out


async def main():
    a = parse(sys.argv[1:])
    if a["mode"] != "turns":
        raise ValueError("unknown mode " + a["mode"])
    conn = await asyncpg.connect(host="127.0.0.1", port=int(a["port"]), database=a["db"],
                                 user=a["user"], password=a["password"])
    try:
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # "go"
        for i in range(int(a["rounds"])):
            ask = await clock_us(conn)
            queued = []

            async def on_queued(_place):
                queued.append(await clock_us(conn))

            turn = await wait_turn(conn, a["fence"], a["holder"], on_queued=on_queued)
            start = await clock_us(conn)
            await asyncio.sleep(int(a["hold-ms"]) / 1000)
            end = await clock_us(conn)
            if not await release(conn, a["fence"], turn):
                print("release answered false", flush=True)
                return 4
            print("section %s %d %d %s %d %d %d %d" % (
                a["holder"], turn.token, ask, queued[0] if queued else "-", start, end, turn.place,
                1 if turn.woken else 0), flush=True)
        print("done", flush=True)
        return 0
    finally:
        await conn.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
