// Set-based statements for the sends of a PostgreSQL send group (pg-group-commit.ts). The group's sends run side
// by side in its one transaction; a store call that has a batched form (a blocklist look-up, a campaign with its
// messages) does not run its own statement there but joins the group's pending batch of its kind, and the batch
// runs as one statement (over unnest() arrays) once every send that is running has reached a batch or finished:
// after the microtasks of the current turn, at setImmediate. A group of 30 one-phone sends then costs a handful of
// round trips instead of two per send, on the node (a socket write per statement) and on the server (a parse,
// bind and execute per statement).
//
// A batch that fails fails each send in it with the database's error, which ends the group (the transaction is
// aborted): its sends run again alone, each with its own statements and its own answer.
import type { Queryable } from '../types.ts';

/** A store call's batched form: runs the requests of several sends in one statement; one result per request, in order. */
export interface GroupBatchKind<Req, Res> {
  run(db: Queryable, requests: readonly Req[]): Promise<Res[]>;
  /** True when the statement writes: each send in it counts as having written (pg-group-commit.ts). */
  writes: boolean;
}

interface Pending {
  requests: unknown[];
  waiters: Array<{ resolve(value: unknown): void; reject(err: unknown): void; member: Member }>;
}

interface Member {
  batches: GroupBatches;
  /** Called when a batch that writes has run for this send. */
  wrote(): void;
}

/** The pending batches of one group, run on the group's transaction. */
export class GroupBatches {
  private pending = new Map<GroupBatchKind<unknown, unknown>, Pending>();
  private scheduled = false;
  /** Statements run for batches, and requests in them (tests and the bench read them). */
  statements = 0;
  requests = 0;

  constructor(private readonly db: Queryable) {}

  add<Req, Res>(kind: GroupBatchKind<Req, Res>, request: Req, member: Member): Promise<Res> {
    const key = kind as GroupBatchKind<unknown, unknown>;
    let batch = this.pending.get(key);
    if (!batch) this.pending.set(key, (batch = { requests: [], waiters: [] }));
    batch.requests.push(request);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise<Res>((resolve, reject) => {
      batch.waiters.push({ resolve: resolve as (value: unknown) => void, reject, member });
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = new Map();
    for (const [kind, batch] of batches) {
      this.statements++;
      this.requests += batch.requests.length;
      kind.run(this.db, batch.requests).then(
        (results) => {
          batch.waiters.forEach((w, i) => {
            if (kind.writes) w.member.wrote();
            w.resolve(results[i]);
          });
        },
        (err) => {
          for (const w of batch.waiters) w.reject(err);
        },
      );
    }
  }
}

const members = new WeakMap<object, Member>();

/** Makes store calls on `db` (one send's view of a group's transaction) join `batches`; `wrote` hears of its batched writes. */
export function joinGroupBatches(db: object, batches: GroupBatches, wrote: () => void): void {
  members.set(db, { batches, wrote });
}

/**
 * Inside a send group, the result of `request` run in the group's batch of `kind`; anywhere else undefined, and
 * the caller runs its own statement.
 */
export function inGroupBatch<Req, Res>(
  db: object,
  kind: GroupBatchKind<Req, Res>,
  request: Req,
): Promise<Res> | undefined {
  const member = members.get(db);
  return member ? member.batches.add(kind, request, member) : undefined;
}
