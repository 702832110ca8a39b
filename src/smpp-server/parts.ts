// Parts of a long message held until the last one comes (UDH or SAR concatenation): then the whole text is
// submitted once and every part answered with its id. A group not completed in time is given up: its parts are
// handed back to be answered with an error.

interface Group<T> {
  total: number;
  parts: Map<number, T>;
  timer: NodeJS.Timeout;
}

export class HeldParts<T> {
  private readonly groups = new Map<string, Group<T>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly onGiveUp: (parts: T[]) => void,
  ) {}

  /** Adds part `seq` of `total`: the parts in order once all are here, else undefined. */
  add(key: string, total: number, seq: number, part: T): T[] | undefined {
    let group = this.groups.get(key);
    if (group && group.total !== total) {
      this.giveUp(key);
      group = undefined;
    }
    if (!group) {
      const timer = setTimeout(() => this.giveUp(key), this.timeoutMs);
      timer.unref();
      group = { total, parts: new Map(), timer };
      this.groups.set(key, group);
    }
    const repeated = group.parts.get(seq);
    group.parts.set(seq, part);
    if (repeated !== undefined) this.onGiveUp([repeated]);
    if (group.parts.size < total) return undefined;
    clearTimeout(group.timer);
    this.groups.delete(key);
    return [...group.parts.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p);
  }

  /** Parts waiting now. */
  get size(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.parts.size;
    return n;
  }

  /** Gives up every group (the server stops). */
  clear(): void {
    for (const key of [...this.groups.keys()]) this.giveUp(key);
  }

  private giveUp(key: string): void {
    const group = this.groups.get(key);
    if (!group) return;
    clearTimeout(group.timer);
    this.groups.delete(key);
    this.onGiveUp([...group.parts.values()]);
  }
}
