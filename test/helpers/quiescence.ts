// Waiting for quiescence before an "exactly once" or "nothing more" assertion: a fixed sleep passes when a
// duplicate comes just after it; this waits until what is counted has stopped changing for a settle period
// longer than the interval a duplicate would come after (a poll or retry interval), within a bound.

/** What `whenQuiet` waits for: how long nothing may change, the bound on the whole wait, and the poll interval. */
export interface QuietOptions {
  /** How long the value must stay the same (1000 ms): longer than the poll or retry interval of what is watched. */
  quietMs?: number;
  /** The longest wait (15 s): a value still changing then fails the wait. */
  maxMs?: number;
  /** How often `read` is called (10 ms). */
  everyMs?: number;
}

/**
 * Reads `read` until its value (compared as JSON) has not changed for `quietMs`, then returns it, for the
 * assertion on a count that must not grow; throws, naming `what`, when it is still changing after `maxMs`.
 */
export async function whenQuiet<T>(
  read: () => T | Promise<T>,
  what: string,
  { quietMs = 1000, maxMs = 15_000, everyMs = 10 }: QuietOptions = {},
): Promise<T> {
  const start = Date.now();
  let value = await read();
  let seen = JSON.stringify(value);
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
    const now = JSON.stringify(value);
    if (now !== seen) {
      seen = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return value;
    if (Date.now() - start > maxMs)
      throw new Error(`${what} still changing after ${maxMs} ms (last: ${seen.slice(0, 200)})`);
  }
}
