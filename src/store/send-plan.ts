// A send planned for the embedded store's writer thread (sqlite-writer.ts): the send runs on the main thread as
// usual, its reads on the main connection, while its writes are recorded here in order instead of run. Only the
// writes of a send's hot path know how to record themselves (a campaign with an id from a reserved block, its
// messages, its ledger rows and guarded debits); any other write marks the plan as not deferrable, and the send
// runs again in an ordinary transaction, where nothing of its first run was written.

/**
 * The recorded statements of a send, flat (one array of plain values crosses to the thread cheaply): for each,
 * its statement's number (statementNumber), 1 for a guarded debit else 0, its parameter count, its parameters.
 */
export type PlannedWrites = unknown[];

// Statements by SQL text, numbered once per process: a send sends the numbers, the thread prepares each text once.
const numbers = new Map<string, number>();
const texts: string[] = [];

/** The number of a statement's SQL text (new texts get the next number). */
export function statementNumber(sql: string): number {
  let n = numbers.get(sql);
  if (n === undefined) {
    n = texts.push(sql) - 1;
    numbers.set(sql, n);
  }
  return n;
}

/** The SQL texts numbered from `from` on (those the thread has not been told of yet). */
export function statementTexts(from: number): string[] {
  return texts.slice(from);
}

/** Thrown by a write the plan cannot record; the send then runs in an ordinary transaction. */
export class NotDeferrable extends Error {
  constructor(what: string) {
    super(`not deferrable to the writer thread: ${what}`);
  }
}

export class SendPlan {
  readonly writes: PlannedWrites = [];
  /** For each guarded debit in order, the error the send ends with when the balance is short. */
  readonly refusals: Array<() => Error> = [];
  /** Set once a write could not be recorded (whatever the send did with the error). */
  notDeferrable = false;

  constructor(
    /** Lookups shared by the sends of the batch this send joins (readOncePerGroup). */
    readonly reads: Map<string, Promise<unknown>>,
  ) {}

  /** Records a write whose result the send does not need. */
  write(sql: string, params: unknown[]): void {
    this.writes.push(statementNumber(sql), 0, params.length, ...params);
  }

  /**
   * Records a guarded UPDATE: if it changes no row, the writer thread rolls the whole send back and the send
   * ends with `refusal()` instead of its reply.
   */
  debit(sql: string, params: unknown[], refusal: () => Error): void {
    this.writes.push(statementNumber(sql), 1, params.length, ...params);
    this.refusals.push(refusal);
  }

  /** Marks the plan as not deferrable and throws. */
  refuse(what: string): never {
    this.notDeferrable = true;
    throw new NotDeferrable(what);
  }
}

const plans = new WeakMap<object, SendPlan>();

/** The plan a query target records into: set for the views the writer thread's sends run on. */
export function planOf(db: object): SendPlan | undefined {
  return plans.get(db);
}

/** Makes `view` record its hot writes into `plan`. */
export function attachPlan(view: object, plan: SendPlan): void {
  plans.set(view, plan);
}
