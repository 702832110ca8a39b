// The SMPP binds live now over every node: one row per bind, written at bind, refreshed by its node with its
// counters, deleted at unbind. A row its node stopped refreshing (the node died) is not live.
import type { Queryable } from './engine/db.ts';
import { countSmppOutboxWaiting } from './smpp-outbox.ts';

/** A bind as it starts. */
export interface NewSmppBind {
  id: string;
  accountId: number;
  node: string;
  bindType: 'transmitter' | 'receiver' | 'transceiver';
  remoteAddress: string;
  tls: boolean;
  since: number;
}

/** A live bind as `yona admin smpp-sessions` and the console show it. */
export interface SmppBindRow {
  id: string;
  accountId: number;
  username: string;
  node: string;
  bindType: string;
  remoteAddress: string;
  tls: boolean;
  since: number;
  submits: number;
  submitsPerSecond: number;
  /** deliver_sm (receipts and inbound texts) waiting for the account in the store. */
  receiptsWaiting: number;
  seenAt: number;
}

export async function insertSmppBind(db: Queryable, b: NewSmppBind): Promise<void> {
  await db
    .insertInto('smpp_binds')
    .values({
      id: b.id,
      account_id: b.accountId,
      node: b.node,
      bind_type: b.bindType,
      remote_address: b.remoteAddress,
      tls: b.tls ? 1 : 0,
      since: b.since,
      seen_at: b.since,
    })
    .execute();
}

export async function deleteSmppBind(db: Queryable, id: string): Promise<void> {
  await db.deleteFrom('smpp_binds').where('id', '=', id).execute();
}

/** Writes a node's binds' counters and marks them seen now. */
export async function refreshSmppBinds(
  db: Queryable,
  binds: Array<{ id: string; submits: number; submitsPerSecond: number }>,
  now: number,
): Promise<void> {
  for (const b of binds)
    await db
      .updateTable('smpp_binds')
      .set({ submits: b.submits, submits_per_second: b.submitsPerSecond, seen_at: now })
      .where('id', '=', b.id)
      .execute();
}

/** Live binds of an account over every node (seen at or after `seenSince`), by type. */
export async function countLiveSmppBinds(db: Queryable, accountId: number, seenSince: number): Promise<number> {
  const row = await db
    .selectFrom('smpp_binds')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('seen_at', '>=', seenSince)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drops the rows of binds no node refreshed since `before` (their node died), and of a node starting again. */
export async function deleteStaleSmppBinds(db: Queryable, before: number, node?: string): Promise<number> {
  let q = db.deleteFrom('smpp_binds').where('seen_at', '<', before);
  if (node !== undefined) q = db.deleteFrom('smpp_binds').where('node', '=', node);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * The live SMPP binds (seen at or after `seenSince`), of one account or of all, oldest first, with the deliver_sm
 * waiting for each account: what `yona admin smpp-sessions` and the console's sessions page read.
 */
export async function listSmppBinds(
  db: Queryable,
  o: { seenSince: number; accountId?: number },
): Promise<SmppBindRow[]> {
  let q = db
    .selectFrom('smpp_binds as b')
    .innerJoin('accounts as a', 'a.id', 'b.account_id')
    .select([
      'b.id',
      'b.account_id',
      'a.username',
      'b.node',
      'b.bind_type',
      'b.remote_address',
      'b.tls',
      'b.since',
      'b.submits',
      'b.submits_per_second',
      'b.seen_at',
    ])
    .where('b.seen_at', '>=', o.seenSince)
    .orderBy('b.since')
    .orderBy('b.id');
  if (o.accountId !== undefined) q = q.where('b.account_id', '=', o.accountId);
  const rows = await q.execute();
  const waiting = await countSmppOutboxWaiting(db, [...new Set(rows.map((r) => Number(r.account_id)))]);
  return rows.map((r) => ({
    id: r.id,
    accountId: Number(r.account_id),
    username: r.username,
    node: r.node,
    bindType: r.bind_type,
    remoteAddress: r.remote_address,
    tls: Number(r.tls) === 1,
    since: Number(r.since),
    submits: Number(r.submits),
    submitsPerSecond: Number(r.submits_per_second),
    receiptsWaiting: waiting.get(Number(r.account_id)) ?? 0,
    seenAt: Number(r.seen_at),
  }));
}
