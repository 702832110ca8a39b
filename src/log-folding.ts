// Folding of repeated log lines: the first of identical lines (same level, message, fields and child bindings)
// is written; the next ones within the window are only counted, and when the window has passed one line says
// `MESSAGE ... repeated N times in S s` with the same fields and `repeated`/`window_s`. So a flood of identical
// failures (a client retrying a bad token in a loop) costs one line a minute, not one line a request. At most
// MAX_KEYS distinct lines are tracked at once; beyond that the oldest is summed up early.
import type { Logger } from 'pino';

/** The default window: one line a minute per repeated line. */
export const FOLD_WINDOW_MS = 60_000;
const MAX_KEYS = 10_000;

type LogArgs = [unknown, ...unknown[]];
type LogMethod = (this: Logger, args: LogArgs, method: (...args: unknown[]) => void, level: number) => void;

interface Repeat {
  since: number;
  count: number;
  logger: Logger;
  method: (...args: unknown[]) => void;
  args: LogArgs;
}

// The fields and message of a line, as text (an Error as its message); undefined when they cannot be written
// as JSON (a request object with cycles, as fastify's request log passes): such a line is never folded.
function keyOf(args: LogArgs): string | undefined {
  try {
    return JSON.stringify(args, (_k, v) => (v instanceof Error ? `${v.name}: ${v.message}` : v));
  } catch {
    return undefined;
  }
}

/** A pino logMethod hook folding repeats within `windowMs`. */
export function foldRepeats(windowMs: number, clock: () => number): LogMethod {
  const repeats = new Map<string, Repeat>();
  let timer: NodeJS.Timeout | undefined;

  const summarize = (key: string, r: Repeat, now: number) => {
    repeats.delete(key);
    if (r.count === 0) return;
    const [first, ...rest] = r.args;
    const fields = typeof first === 'object' && first !== null && !(first instanceof Error) ? first : {};
    const message = typeof first === 'string' ? first : typeof rest[0] === 'string' ? rest[0] : '';
    const seconds = Math.max(1, Math.round((now - r.since) / 1000));
    r.method.call(
      r.logger,
      { ...fields, repeated: r.count, window_s: seconds },
      `${message} ... repeated ${r.count} times in ${seconds} s`,
    );
  };
  const sweep = () => {
    const now = clock();
    for (const [key, r] of repeats) if (now - r.since >= windowMs) summarize(key, r, now);
    if (repeats.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return function logMethod(this: Logger, args, method, level) {
    const fields = keyOf(args);
    if (fields === undefined) return method.apply(this, args);
    const key = `${level}\u0000${fields}\u0000${keyOf([this.bindings()])}`;
    const now = clock();
    const seen = repeats.get(key);
    if (seen && now - seen.since < windowMs) {
      seen.count++;
      return;
    }
    if (seen) summarize(key, seen, now);
    if (repeats.size >= MAX_KEYS) {
      const [oldest, r] = repeats.entries().next().value!;
      summarize(oldest, r, now);
    }
    repeats.set(key, { since: now, count: 0, logger: this, method, args });
    timer ??= setInterval(sweep, Math.min(windowMs, 1000)).unref();
    method.apply(this, args);
  };
}
