// A CPU profile of this process (the service runs in the bench's own process) while a load runs, saved as a
// .cpuprofile (open it in Chrome DevTools or speedscope), and its time split by category of work: each sample
// goes to the innermost frame of its stack that belongs to a known piece (our modules and the libraries the
// hot path uses), so V8 built-ins and Node internals count for the code that called them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  parent?: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber?: number; columnNumber?: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** When sampling began, on the monotonic clock (microseconds; process.hrtime's clock). */
  startTime?: number;
  samples: number[];
  timeDeltas: number[];
}

const BENCH = 'the bench and its profiler';
const STATEMENTS = 'send statements (SQL, group commit)';
const HTTP = 'HTTP (node:http, fastify, sockets)';

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
  [STATEMENTS, /\/src\/store\/|\/node_modules\/(better-sqlite3|kysely|pg|pg-protocol)\//],
  ['send logic (destinations, pricing)', /\/src\/operations\/|\/src\/domain\//],
  ['API route and batching', /\/src\/http\/api-route\.ts|\/src\/http\/bearer\.ts/],
  [
    HTTP,
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
    // Node's socket and stream code counts for the database driver when the driver called it (its writes).
    if (category === HTTP && node.callFrame.url.startsWith('node:') && node.parent !== undefined) {
      if (categoryOf(node.parent) === STATEMENTS) category = STATEMENTS;
    }
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

/**
 * The profile of a built `yona` (dist/, one bundle) with each frame named by its source file through the
 * bundle's source map, so the categories above apply to it as to the source.
 */
export function withSourcesMapped(profile: CpuProfile): CpuProfile {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (url: string) => {
    if (!maps.has(url)) {
      const file = fileURLToPath(url);
      maps.set(
        url,
        existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) : undefined,
      );
    }
    return maps.get(url);
  };
  for (const { callFrame: frame } of profile.nodes) {
    if (!frame.url.startsWith('file:')) continue;
    const entry = mapOf(frame.url)?.findEntry(frame.lineNumber ?? 0, frame.columnNumber ?? 0) as
      | { originalSource?: string }
      | undefined;
    if (!entry?.originalSource) continue;
    frame.url = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(fileURLToPath(frame.url)), entry.originalSource);
  }
  return profile;
}

/** The profile's samples taken between two readings of the monotonic clock (process.hrtime, in microseconds). */
export function samplesBetween(profile: CpuProfile, fromUs: number, toUs: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let at = profile.startTime ?? 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    samples.push(profile.samples[i]);
    timeDeltas.push(profile.timeDeltas[i] ?? 0);
  }
  return { nodes: profile.nodes, samples, timeDeltas };
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
