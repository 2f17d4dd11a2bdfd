// The TypeScript leg's calls of the lease-RPC pair, through npm `pg` and plain SQL: what
// supabase-js `.rpc('corpus_writer_fence_lease_acquire', { p_holder_token, p_holder })` sends
// through PostgREST, a named-parameter call with the server's defaults for the rest (no fence
// name, as production callers pass none, unless --fence-name is given).
//
// node leg.js MODE --port P --db D --user U --password W --holder H [--fence-name F]
//   hold:   acquire once (exit 3 when busy), print "held", wait for a line on stdin, release,
//           print "released true|false"
//   try:    acquire once, print "acquired" (and release) or "busy"
//   rounds: --rounds N --hold-ms M --record FILE: N times wait for the lease (polling), append
//           "start H i" and "end H i" to FILE around M ms of work, release (exit 4 when release
//           answers false); print "done"
'use strict';
const { Client } = require('pg');
const crypto = require('crypto');
const fs = require('fs');
const readline = require('readline');

function args(argv) {
  const out = { mode: argv[0] };
  for (let i = 1; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  return out;
}

const a = args(process.argv.slice(2));

function call(fn, token, withTtl) {
  const params = ['p_holder_token => $1::uuid', 'p_holder => $2'];
  const values = [token, a.holder];
  if (withTtl && a.ttl) {
    values.push(Number(a.ttl));
    params.push(`p_ttl_seconds => $${values.length}`);
  }
  if (a['fence-name']) {
    values.push(a['fence-name']);
    params.push(`p_fence_name => $${values.length}`);
  }
  return { text: `select public.${fn}(${params.join(', ')}) as ok`, values };
}

async function acquire(client, token) {
  const r = await client.query(call('corpus_writer_fence_lease_acquire', token, true));
  return r.rows[0].ok === true;
}

async function release(client, token) {
  const r = await client.query(call('corpus_writer_fence_lease_release', token, false));
  return r.rows[0].ok === true;
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

async function main() {
  const client = new Client({
    host: '127.0.0.1',
    port: Number(a.port),
    database: a.db,
    user: a.user,
    password: a.password,
  });
  await client.connect();
  try {
    if (a.mode === 'hold') {
      const token = crypto.randomUUID();
      if (!(await acquire(client, token))) {
        console.log('busy');
        process.exitCode = 3;
        return;
      }
      console.log('held');
      const rl = readline.createInterface({ input: process.stdin });
      await new Promise((res) => rl.once('line', res));
      rl.close();
      console.log('released ' + (await release(client, token)));
    } else if (a.mode === 'try') {
      const token = crypto.randomUUID();
      if (await acquire(client, token)) {
        await release(client, token);
        console.log('acquired');
      } else {
        console.log('busy');
      }
    } else if (a.mode === 'rounds') {
      const rounds = Number(a.rounds);
      const holdMs = Number(a['hold-ms']);
      for (let i = 0; i < rounds; i++) {
        const token = crypto.randomUUID();
        const deadline = Date.now() + 120000;
        while (!(await acquire(client, token))) {
          if (Date.now() > deadline) throw new Error('no lease within 120 s');
          await sleep(5 + Math.floor(Math.random() * 10));
        }
        fs.appendFileSync(a.record, `start ${a.holder} ${i}\n`);
        await sleep(holdMs);
        fs.appendFileSync(a.record, `end ${a.holder} ${i}\n`);
        if (!(await release(client, token))) {
          console.log('release answered false');
          process.exitCode = 4;
          return;
        }
      }
      console.log('done');
    } else {
      throw new Error('unknown mode ' + a.mode);
    }
  } finally {
    await client.end();
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(2);
});
