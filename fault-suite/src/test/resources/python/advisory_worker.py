"""A Python job worker as the team runs it: a session advisory lock per unit of work.

The key is the first 8 bytes of sha256("vibey.integrate:<project>:<cycle>") read as a signed
big-endian 64-bit integer; the lock is taken with pg_try_advisory_lock on a connection pinned out
of an asyncpg pool and released in finally; contention is a defer (the job re-queues), never a
wait. Driven by PythonAdvisoryKeyTest, which reads one line per event on stdout.

Usage: advisory_worker.py DSN MODE PROJECT CYCLE [WRITER ROUNDS TABLE]
  hold    take the lock, print "held True|False", wait for a line on stdin, release, "released"
  try     try once: print "acquired" (and release) or "deferred"
  rounds  do ROUNDS units of work, each appending start and end rows to TABLE under the lock,
          deferring (and trying again later) while it is taken; print "done ROUNDS DEFERS"
"""

import asyncio
import hashlib
import random
import sys

import asyncpg


def advisory_key(project, cycle):
    digest = hashlib.sha256(f"vibey.integrate:{project}:{cycle}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def say(line):
    print(line, flush=True)


async def hold(pool, key):
    async with pool.acquire() as conn:
        held = await conn.fetchval("SELECT pg_try_advisory_lock($1)", key)
        say(f"held {held}")
        try:
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        finally:
            if held:
                await conn.fetchval("SELECT pg_advisory_unlock($1)", key)
        say("released")


async def try_once(pool, key):
    async with pool.acquire() as conn:
        if await conn.fetchval("SELECT pg_try_advisory_lock($1)", key):
            try:
                say("acquired")
            finally:
                await conn.fetchval("SELECT pg_advisory_unlock($1)", key)
        else:
            say("deferred")


async def rounds(pool, key, writer, wanted, table):
    done = 0
    defers = 0
    while done < wanted:
        async with pool.acquire() as conn:
            if not await conn.fetchval("SELECT pg_try_advisory_lock($1)", key):
                defers += 1
            else:
                try:
                    await conn.execute(
                        f"INSERT INTO {table} (writer, event) VALUES ($1, 'start')", writer)
                    await asyncio.sleep(random.uniform(0.005, 0.03))
                    await conn.execute(
                        f"INSERT INTO {table} (writer, event) VALUES ($1, 'end')", writer)
                    done += 1
                finally:
                    await conn.fetchval("SELECT pg_advisory_unlock($1)", key)
        await asyncio.sleep(random.uniform(0.001, 0.02))  # the job re-queues
    say(f"done {done} {defers}")


async def main(argv):
    dsn, mode, project, cycle = argv[1:5]
    key = advisory_key(project, cycle)
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    try:
        if mode == "hold":
            await hold(pool, key)
        elif mode == "try":
            await try_once(pool, key)
        elif mode == "rounds":
            writer, wanted, table = argv[5], int(argv[6]), argv[7]
            await rounds(pool, key, writer, wanted, table)
        else:
            raise SystemExit(f"unknown mode {mode!r}")
    finally:
        await pool.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
