// `npm run bench -- dispatch --store postgres --nodes 1,2 [--recipients N] [--binds N]`: the dispatch benchmark
// over several `yona serve` processes on one PostgreSQL database. For each node count, on a fresh database: an
// SMSC simulator in its own process, node-1 with every role and the others with dispatcher and receipts, one
// carrier whose binds (4 by default) are the total over the nodes; one HTTP sms to N recipients (100,000) on
// node-1, timed to the last submit_sm the SMSC saw and to the last receipt stored. One JSON line for all counts.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentLeases } from '../src/store/nodes.ts';
import { argValue, openWithBenchAccount, scratchDatabase, startNode, stopNodes, type BenchNode } from './lib/nodes.ts';
import { startSmscSim } from './lib/smsc-sim.ts';

const arg = argValue;
const counts = arg('nodes', '1,2')
  .split(',')
  .map(Number)
  .filter((n) => n >= 1);
const recipients = Number(arg('recipients', '100000'));
const binds = Number(arg('binds', '4'));

async function poll(check: () => Promise<boolean>, ms: number, what: string, every = 10): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

// What node's /metrics says it submitted.
async function submittedBy(node: BenchNode): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${node.httpPort}/metrics`)).text();
  const m = /yona_dispatched_messages_total\{[^}]*outcome="submitted"[^}]*\} (\d+)/.exec(text);
  return m ? Number(m[1]) : 0;
}

async function runWith(count: number): Promise<Record<string, unknown>> {
  const db = await scratchDatabase(`n${count}`);
  const smsc = await startSmscSim(200);
  const carriersFile = join(tmpdir(), `yona-bench-carriers-${process.pid}-${count}.json`);
  writeFileSync(
    carriersFile,
    JSON.stringify({
      carriers: [
        {
          name: 'sim',
          host: '127.0.0.1',
          port: smsc.port,
          systemId: 'yona',
          password: 'bench',
          binds,
          windowSize: 200,
        },
      ],
    }),
  );
  const env = { DATABASE_URL: db.url, YONA_CARRIERS_FILE: carriersFile, YONA_NODE_LEASE_MS: '3000' };
  const { store, token } = await openWithBenchAccount(db.url, env, recipients);
  const nodes: BenchNode[] = [];
  try {
    for (let i = 1; i <= count; i++)
      nodes.push(await startNode(`node-${i}`, i === 1 ? 'all' : 'dispatcher,receipts', env));
    // Binds settle before the clock starts: every node holds its part.
    await poll(
      async () => {
        const leases = (await currentLeases(store.db, Date.now())).filter((l) => l.name.startsWith('bind:'));
        return leases.length === binds && nodes.every((n) => leases.some((l) => l.node === n.name));
      },
      30_000,
      'binds spread over the nodes',
      200,
    );
    const cpu0 = nodes.map((n) => n.cpuSeconds());
    const phones = Array.from({ length: recipients }, (_, i) => `05${20_000_009 + i * 10}`);
    const body = JSON.stringify({
      sms: {
        user: { username: 'bench' },
        source: 'Yona',
        destinations: { phone: phones },
        message: 'Your code is 123456. Yona dispatch benchmark.',
      },
    });
    const stats = async () =>
      (await (await fetch(`${smsc.controlUrl}/stats`)).json()) as { messagesReceived: number; maxInFlight: number };
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${nodes[0].httpPort}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    const reply = (await res.json()) as { status: number; message: string };
    if (reply.status !== 0) throw new Error(`sms answered ${reply.status}: ${reply.message}`);
    const acceptedMs = performance.now() - t0;
    let first = 0;
    await poll(
      async () => {
        const n = (await stats()).messagesReceived;
        if (!first && n > 0) first = performance.now();
        return n >= recipients;
      },
      600_000,
      'every message submitted',
    );
    const lastSubmit = performance.now();
    await poll(
      async () => {
        const row = await store.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', '=', 'done')
          .executeTakeFirstOrThrow();
        return Number(row.n) >= recipients;
      },
      600_000,
      'every receipt stored',
      100,
    );
    const lastReceipt = performance.now();
    const perNode = await Promise.all(
      nodes.map(async (n, i) => ({
        node: n.name,
        submitted: await submittedBy(n),
        cpu_s: +(n.cpuSeconds() - cpu0[i]).toFixed(1),
      })),
    );
    return {
      nodes: count,
      accept_ms: Math.round(acceptedMs),
      submit_sm_per_s: Math.round(recipients / ((lastSubmit - first) / 1000)),
      e2e_messages_per_s: Math.round(recipients / ((lastReceipt - t0) / 1000)),
      e2e_seconds: +((lastReceipt - t0) / 1000).toFixed(2),
      per_node: perNode,
      duplicates_at_smsc: (await stats()).messagesReceived - recipients,
    };
  } finally {
    await stopNodes(nodes);
    await store.close();
    smsc.stop();
    await db.drop();
  }
}

const runs: Array<Record<string, unknown>> = [];
for (const count of counts) runs.push(await runWith(count));
const by = (n: number) =>
  runs.find((r) => r.nodes === n) as { submit_sm_per_s: number; e2e_messages_per_s: number } | undefined;
const [one, two] = [by(1), by(2)];
console.log(
  JSON.stringify({
    bench: 'dispatch',
    store: 'postgres',
    recipients,
    binds_total: binds,
    runs,
    ...(one && two
      ? {
          ratio_2_to_1: {
            submit_sm_per_s: +(two.submit_sm_per_s / one.submit_sm_per_s).toFixed(2),
            e2e: +(two.e2e_messages_per_s / one.e2e_messages_per_s).toFixed(2),
          },
        }
      : {}),
  }),
);
