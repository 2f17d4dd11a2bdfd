"""The Python leg's calls of the lease-RPC pair, through asyncpg (Debian's python3-asyncpg).

A named-parameter call of each function with the server's defaults for the rest (no fence name, as
production callers pass none, unless --fence-name is given). Same modes and output as the Node leg
(leg.js beside the Node one):

  python3 leg.py MODE --port P --db D --user U --password W --holder H [--fence-name F]
    hold:   acquire once (exit 3 when busy), print "held", wait for a line on stdin, release,
            print "released true|false"
    try:    acquire once, print "acquired" (and release) or "busy"
    rounds: --rounds N --hold-ms M --record FILE: N times wait for the lease (polling), append
            "start H i" and "end H i" to FILE around M ms of work, release (exit 4 when release
            answers false); print "done"
"""
import asyncio
import os
import random
import sys
import time
import uuid

import asyncpg


def parse(argv):
    out = {"mode": argv[0]}
    for i in range(1, len(argv), 2):
        out[argv[i].lstrip("-")] = argv[i + 1]
    return out


A = parse(sys.argv[1:])


def call(fn, token, with_ttl):
    params = ["p_holder_token => $1::uuid", "p_holder => $2"]
    values = [token, A["holder"]]
    if with_ttl and "ttl" in A:
        values.append(int(A["ttl"]))
        params.append("p_ttl_seconds => $%d" % len(values))
    if "fence-name" in A:
        values.append(A["fence-name"])
        params.append("p_fence_name => $%d" % len(values))
    return "select public.%s(%s)" % (fn, ", ".join(params)), values


async def acquire(conn, token):
    sql, values = call("corpus_writer_fence_lease_acquire", token, True)
    return (await conn.fetchval(sql, *values)) is True


async def release(conn, token):
    sql, values = call("corpus_writer_fence_lease_release", token, False)
    return (await conn.fetchval(sql, *values)) is True


def append(path, line):
    # One write on an O_APPEND descriptor: lines of every leg land whole, in the order written.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


async def main():
    conn = await asyncpg.connect(
        host="127.0.0.1",
        port=int(A["port"]),
        database=A["db"],
        user=A["user"],
        password=A["password"],
    )
    try:
        mode = A["mode"]
        if mode == "hold":
            token = uuid.uuid4()
            if not await acquire(conn, token):
                print("busy", flush=True)
                return 3
            print("held", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            print("released " + str(await release(conn, token)).lower(), flush=True)
        elif mode == "try":
            token = uuid.uuid4()
            if await acquire(conn, token):
                await release(conn, token)
                print("acquired", flush=True)
            else:
                print("busy", flush=True)
        elif mode == "rounds":
            holder = A["holder"]
            for i in range(int(A["rounds"])):
                token = uuid.uuid4()
                deadline = time.monotonic() + 120
                while not await acquire(conn, token):
                    if time.monotonic() > deadline:
                        raise RuntimeError("no lease within 120 s")
                    await asyncio.sleep((5 + random.randrange(10)) / 1000)
                append(A["record"], "start %s %d\n" % (holder, i))
                await asyncio.sleep(int(A["hold-ms"]) / 1000)
                append(A["record"], "end %s %d\n" % (holder, i))
                if not await release(conn, token):
                    print("release answered false", flush=True)
                    return 4
            print("done", flush=True)
        else:
            raise ValueError("unknown mode " + mode)
        return 0
    finally:
        await conn.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
