// The service's CPU split by stage of a message's path (accept, dispatch, receipt, push), from a V8 profile of
// the built `yona serve` (bench/lib/profile.ts maps its frames to source files): each sample goes to the innermost
// frame of its stack that belongs to a stage, so the database driver, kysely and V8 built-ins count for the stage
// that called them; samples with no stage frame (garbage collection, timers, logging outside a stage) are `other`.
import type { CpuProfile } from './profile.ts';

export const STAGES = ['accept', 'dispatch', 'receipt', 'push', 'other'] as const;
export type Stage = (typeof STAGES)[number];

/** Stages by the first rule whose pattern matches a frame's source path. */
const RULES: Array<[Stage, RegExp]> = [
  ['push', /\/src\/delivery\/(pusher|push-http|push-metrics)\.ts|\/src\/store\/push(-queue)?\.ts/],
  [
    'receipt',
    /\/src\/delivery\/(receipts|inbound)\.ts|\/src\/store\/(receipts|inbound)\.ts|\/src\/carriers\/smpp\/receipt\.ts/,
  ],
  [
    'dispatch',
    /\/src\/delivery\/(dispatcher|routing|carrier-[\w-]+|batch-recorder|daily-caps|scheduler)\.ts|\/src\/store\/(dispatch|carrier-[\w-]+)\.ts|\/src\/carriers\//,
  ],
  ['accept', /\/src\/(http|operations)\/|\/node_modules\/(fastify|find-my-way|@fastify\/[^/]+|zod)\//],
];

/** Microseconds of busy samples per stage (idle left out). */
export function samplesByStage(profile: CpuProfile): Map<Stage, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const cached = new Map<number, Stage | 'idle'>();
  const stageOf = (id: number): Stage | 'idle' => {
    const hit = cached.get(id);
    if (hit) return hit;
    const node = byId.get(id)!;
    const frame = node.callFrame;
    let stage: Stage | 'idle' | undefined = frame.url === '' && frame.functionName === '(idle)' ? 'idle' : undefined;
    for (const [name, pattern] of RULES) if (!stage && pattern.test(frame.url)) stage = name;
    if (!stage) stage = node.parent === undefined ? 'other' : stageOf(node.parent);
    cached.set(id, stage);
    return stage;
  };
  const totals = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  for (let i = 0; i < profile.samples.length; i++) {
    const stage = stageOf(profile.samples[i]);
    if (stage !== 'idle') totals.set(stage, totals.get(stage)! + (profile.timeDeltas[i] ?? 0));
  }
  return totals;
}

/** The measured CPU per message shared out by the stages' shares of the busy samples. */
export function cpuUsByStage(totals: Map<Stage, number>, cpuUsPerMessage: number): Record<Stage, number> {
  const sum = [...totals.values()].reduce((s, us) => s + us, 0);
  return Object.fromEntries(
    STAGES.map((s) => [s, Math.round(((totals.get(s) ?? 0) / Math.max(sum, 1)) * cpuUsPerMessage * 10) / 10]),
  ) as Record<Stage, number>;
}
