// A CPU profile of this process (the service runs in the bench's own process) while a load runs, saved as a
// .cpuprofile (open it in Chrome DevTools or speedscope), and its time split by category of work: each sample
// goes to the innermost frame of its stack that belongs to a known piece (our modules and the libraries the
// hot path uses), so V8 built-ins and Node internals count for the code that called them.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  parent?: number;
  children?: number[];
  callFrame: { functionName: string; url: string };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const BENCH = 'the bench and its profiler';

/** Categories by the first rule whose pattern matches a frame's `url#functionName`. */
const RULES: Array<[category: string, pattern: RegExp]> = [
  [BENCH, /\/bench\//],
  ['logging', /\/node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream)\/|\/src\/logger\.ts/],
  ['metrics', /\/node_modules\/prom-client\/|\/src\/http\/metrics\.ts/],
  [
    'auth (token, account, allowlist)',
    /\/src\/operations\/(auth|legacy-auth)\.ts|\/src\/store\/(tokens|accounts)\.ts|\/src\/domain\/(token|ip)\.ts/,
  ],
  ['validation (zod, field rules)', /\/node_modules\/zod\/|\/src\/operations\/(fields|send\/options)\.ts/],
  [
    'reply building',
    /\/src\/operations\/send\/reply\.ts|\/src\/http\/(accept|language)\.ts|\/src\/http\/codec\.ts#(encodeReply|xmlShape|replyContentType)$|\/node_modules\/(xmlbuilder|fast-json-stringify)\//,
  ],
  ['body decoding', /\/src\/http\/codec\.ts#|\/node_modules\/(xml2js|sax|secure-json-parse)\//],
  ['send statements (SQL, group commit)', /\/src\/store\/|\/node_modules\/(better-sqlite3|kysely|pg|pg-protocol)\//],
  ['send logic (destinations, pricing)', /\/src\/operations\/|\/src\/domain\//],
  ['API route and batching', /\/src\/http\/api-route\.ts|\/src\/http\/bearer\.ts/],
  [
    'HTTP (node:http, fastify, sockets)',
    /\/node_modules\/(fastify|find-my-way|light-my-request|avvio|@fastify\/[^/]+|fastq|toad-cache|process-warning|abstract-logging|rfdc)\/|^node:(_http|http|net|stream|internal\/streams|internal\/http)/,
  ],
];

const SPECIAL = new Map([
  ['(garbage collector)', 'garbage collection'],
  ['(program)', 'V8/native, unattributed'],
  ['(idle)', 'idle'],
]);

function categoryOfFrame(frame: ProfileNode['callFrame']): string | undefined {
  if (frame.url === '') return undefined;
  const key = `${frame.url}#${frame.functionName}`;
  for (const [category, pattern] of RULES) if (pattern.test(key)) return category;
  return undefined;
}

/** Microseconds of samples per category (the `idle` category is the event loop waiting). */
export function profileByCategory(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const cached = new Map<number, string>();
  const categoryOf = (id: number): string => {
    const hit = cached.get(id);
    if (hit) return hit;
    const node = byId.get(id)!;
    const special = node.callFrame.url === '' ? SPECIAL.get(node.callFrame.functionName) : undefined;
    let category = special ?? categoryOfFrame(node.callFrame);
    // Built-ins and Node internals outside the rules (node:crypto under the token's hash) count for their caller.
    if (!category) category = node.parent === undefined ? 'event loop, timers, other' : categoryOf(node.parent);
    cached.set(id, category);
    return category;
  };
  const totals = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const category = categoryOf(profile.samples[i]);
    totals.set(category, (totals.get(category) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return totals;
}

/** Starts sampling this process's main thread; `stop` saves the profile to `file` and returns it. */
export async function startProfile(intervalUs = 200): Promise<{ stop(file: string): Promise<CpuProfile> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
      session.disconnect();
      writeFileSync(file, JSON.stringify(profile));
      return profile;
    },
  };
}

/**
 * The budget table: each category's share of the service's busy samples (idle and the bench left out), busiest first, and that share of
 * the process's measured CPU per accept. Samples are wall-clock: on a loaded machine a descheduled thread's
 * time lands on whatever it was running, so shares are read against the CPU figure, not summed as time.
 */
export function budgetTable(
  totals: Map<string, number>,
  cpuUsPerAccept: number,
): Array<{ category: string; us: number; share: number }> {
  const busy = [...totals].filter(([c]) => c !== 'idle' && c !== BENCH);
  const sum = busy.reduce((s, [, us]) => s + us, 0);
  return busy
    .sort((a, b) => b[1] - a[1])
    .map(([category, us]) => ({
      category,
      us: Math.round((us / Math.max(sum, 1)) * cpuUsPerAccept * 10) / 10,
      share: Math.round((us / Math.max(sum, 1)) * 1000) / 10,
    }));
}
