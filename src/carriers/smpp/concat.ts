// Reassembly of concatenated SMS parts (UDH ref/total/seq), used for inbound MO and by the simulator.

interface Group<T> {
  total: number;
  parts: Map<number, T>;
  touched: number;
}

/** A completed group: its key (pass to `forget`) and the parts in sequence order. */
export interface Reassembled<T> {
  key: string;
  parts: T[];
}

/**
 * Collects parts under a caller-built key (sender, recipient, ref, total). A completed group stays until
 * `forget(key)` so a part redelivered after a failed hand-off completes it again; groups untouched for
 * `ttlMs` are dropped.
 */
export class Reassembler<T> {
  private readonly groups = new Map<string, Group<T>>();
  private lastSweep = 0;

  constructor(private readonly ttlMs = 10 * 60_000) {}

  /** Adds part `seq` of `total`; returns the whole group once every part is present. */
  add(key: string, total: number, seq: number, part: T, now = Date.now()): Reassembled<T> | undefined {
    this.expire(now);
    let group = this.groups.get(key);
    if (!group || group.total !== total) {
      group = { total, parts: new Map(), touched: now };
      this.groups.set(key, group);
    }
    group.parts.set(seq, part);
    group.touched = now;
    if (group.parts.size < total) return undefined;
    const parts: T[] = [];
    for (let i = 1; i <= total; i++) {
      const p = group.parts.get(i);
      if (p === undefined) return undefined;
      parts.push(p);
    }
    return { key, parts };
  }

  /** Drops a group once its message has been handed on. */
  forget(key: string): void {
    this.groups.delete(key);
  }

  /** Number of incomplete or unforgotten groups. */
  get pending(): number {
    return this.groups.size;
  }

  private expire(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [key, group] of this.groups) {
      if (now - group.touched > this.ttlMs) this.groups.delete(key);
    }
  }
}
