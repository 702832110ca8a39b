// Webhook events stored in groups. The events of webhooks that arrive while a group is being written (or in the
// same turn of the event loop) are inserted together, in one transaction, and each webhook is answered only once
// the transaction holding its events has committed (or fails with it: the carrier posts it again). A transaction
// and a commit per webhook cost more than the statements themselves at thousands of status webhooks a second.
import type { NewIngressEvent } from '../store/ingress.ts';

/** Rows one group holds at most (a larger backlog goes in the next groups). */
const GROUP_ROWS = 2000;

interface Waiting {
  rows: NewIngressEvent[];
  resolve(): void;
  reject(err: unknown): void;
}

/** Writes webhook events in groups through `write` (one transaction for the rows given). */
export class IngressBatchWriter {
  private waiting: Waiting[] = [];
  private writing = false;
  private scheduled = false;

  constructor(private readonly write: (rows: NewIngressEvent[]) => Promise<void>) {}

  /** Resolves once `rows` are stored (committed), with the rows of other webhooks of its group. */
  store(rows: NewIngressEvent[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ rows, resolve, reject });
      this.schedule();
    });
  }

  // The next group starts after the turn (so the webhooks read in it join) and never beside another one.
  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.writeGroup();
    });
  }

  private async writeGroup(): Promise<void> {
    let count = 0;
    let take = 0;
    while (take < this.waiting.length && (take === 0 || count + this.waiting[take].rows.length <= GROUP_ROWS))
      count += this.waiting[take++].rows.length;
    const group = this.waiting.splice(0, take);
    if (group.length === 0) return;
    this.writing = true;
    try {
      await this.write(group.flatMap((w) => w.rows));
      for (const w of group) w.resolve();
    } catch (err) {
      for (const w of group) w.reject(err);
    } finally {
      this.writing = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
