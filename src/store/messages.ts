// Message rows (one per recipient): multi-row inserts for large sends, the temp_bl look-back, the state
// changes of scheduled messages, and refunds of messages that never left.
import { CompiledQuery, sql } from 'kysely';
import { runCompiled, type Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import { CAMPAIGN_COLUMNS, campaignValues, insertCampaign, type NewCampaign } from './campaigns.ts';
import { applyLedgerChange } from './ledger.ts';
import { pgArray } from './pg-arrays.ts';
import { inGroupBatch, type GroupBatchKind } from './engine/pg-group-batch.ts';
import type { MessageState } from './schema/sending.ts';
import type { DeliveryStatus } from '../domain/status.ts';

/** What varies per message row. */
export interface NewMessage {
  phone: string;
  externalId: string | null;
  source: string;
  text: string;
  parts: number;
  costCredits: number;
  costAgorot: number;
  unsubscribeCode: string | null;
  /** The encrypted value of the text's `[code]` (one-time codes); absent: none. */
  sealed?: string | null;
  /**
   * Its channel as message rows store it (domain/channels.ts `stored`): 'call', the text spoken in a voice call
   * as `spoken` (JSON) says; absent: 'sms', a text.
   */
  channel?: string;
  spoken?: string | null;
  /** For a template payload (WhatsApp): the template and its parameters, JSON of carriers/types.ts TemplatePayload. */
  template?: string | null;
}

/** What every row of one insert shares. */
export interface MessageBatchCommon {
  campaignId: number;
  accountId: number;
  state: 'scheduled' | 'queued';
  nextAttemptAt: number;
  now: number;
  /** 1: the dispatcher's priority lane takes them ahead of campaign traffic (absent: 0). */
  priority?: number;
}

const ROW_COLUMNS = [
  'external_id',
  'phone',
  'source',
  'text',
  'parts',
  'cost_credits',
  'cost_agorot',
  'unsubscribe_code',
  'sealed',
  'channel',
  'spoken',
  'template',
];
const SHARED_COLUMNS = ['campaign_id', 'account_id', 'state', 'next_attempt_at', 'created_at', 'priority'];
const COLUMN_LIST = [...SHARED_COLUMNS, ...ROW_COLUMNS].join(', ');
// SQLite: 18 bound values per row keeps 500 rows under its 32766-parameter limit.
const SQLITE_CHUNK = 500;
const POSTGRES_CHUNK = 10_000;
const sqliteStatements = new Map<number, string>();

function sqliteInsert(rows: number): string {
  let text = sqliteStatements.get(rows);
  if (!text) {
    const tuple = `(${new Array(SHARED_COLUMNS.length + ROW_COLUMNS.length).fill('?').join(', ')})`;
    text = `insert into messages (${COLUMN_LIST}) values ${new Array(rows).fill(tuple).join(', ')}`;
    sqliteStatements.set(rows, text);
  }
  return text;
}

// PostgreSQL: one statement per 10,000 rows over unnest(); a column with the same value in every row (the
// text of an sms, its source, its price) is sent once as a scalar instead of an array of copies.
const PG_ROW_COLUMNS: Array<{ name: string; type: string; value: (m: NewMessage) => unknown }> = [
  { name: 'external_id', type: 'text', value: (m) => m.externalId },
  { name: 'phone', type: 'text', value: (m) => m.phone },
  { name: 'source', type: 'text', value: (m) => m.source },
  { name: 'text', type: 'text', value: (m) => m.text },
  { name: 'parts', type: 'int', value: (m) => m.parts },
  { name: 'cost_credits', type: 'bigint', value: (m) => m.costCredits },
  { name: 'cost_agorot', type: 'bigint', value: (m) => m.costAgorot },
  { name: 'unsubscribe_code', type: 'text', value: (m) => m.unsubscribeCode },
  { name: 'sealed', type: 'text', value: (m) => m.sealed ?? null },
  { name: 'channel', type: 'text', value: (m) => m.channel ?? 'sms' },
  { name: 'spoken', type: 'text', value: (m) => m.spoken ?? null },
  { name: 'template', type: 'text', value: (m) => m.template ?? null },
];
const pgRowSelects = new Map<string, { exprs: string; from: string }>();

// The per-row columns of a PostgreSQL insert (scalars, or the columns of one unnest), numbered after `base` parameters.
function postgresRows(rows: NewMessage[], base: number): { exprs: string; from: string; params: unknown[] } {
  const params: unknown[] = [];
  const constant = PG_ROW_COLUMNS.map((column) => {
    const first = column.value(rows[0]);
    return column.name !== 'phone' && rows.every((r) => column.value(r) === first);
  });
  PG_ROW_COLUMNS.forEach((column, i) => params.push(constant[i] ? column.value(rows[0]) : rows.map(column.value)));
  const shape = `${base}:${constant.map((c) => (c ? 's' : 'a')).join('')}`;
  let select = pgRowSelects.get(shape);
  if (!select) {
    const exprs: string[] = [];
    const arrays: string[] = [];
    PG_ROW_COLUMNS.forEach((column, i) => {
      const param = `$${base + i + 1}::${column.type}`;
      if (constant[i]) exprs.push(param);
      else {
        arrays.push(`${param}[]`);
        exprs.push(`u.c${arrays.length}`);
      }
    });
    select = {
      exprs: exprs.join(', '),
      from: `unnest(${arrays.join(', ')}) as u(${arrays.map((_, i) => `c${i + 1}`).join(', ')})`,
    };
    pgRowSelects.set(shape, select);
  }
  return { ...select, params };
}

// `$from, $from+1, ...`: `count` numbered parameters.
function placeholders(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

function sharedValues(common: Omit<MessageBatchCommon, 'campaignId'>): unknown[] {
  return [common.accountId, common.state, common.nextAttemptAt, common.now, common.priority ?? 0];
}

/** Inserts message rows in multi-row statements (unnest on PostgreSQL); ids are not returned. */
export async function insertMessages(db: Queryable, common: MessageBatchCommon, rows: NewMessage[]): Promise<void> {
  const dialect = dialectOf(db);
  const shared = [common.campaignId, ...sharedValues(common)];
  if (dialect === 'postgres') {
    for (let i = 0; i < rows.length; i += POSTGRES_CHUNK) {
      const { exprs, from, params } = postgresRows(rows.slice(i, i + POSTGRES_CHUNK), shared.length);
      const text = `insert into messages (${COLUMN_LIST}) select ${placeholders(1, shared.length)}, ${exprs} from ${from}`;
      await db.executeQuery(CompiledQuery.raw(text, [...shared, ...params]));
    }
    return;
  }
  for (let i = 0; i < rows.length; i += SQLITE_CHUNK) {
    const chunk = rows.slice(i, i + SQLITE_CHUNK);
    const params: unknown[] = [];
    for (const r of chunk) {
      params.push(
        ...shared,
        r.externalId,
        r.phone,
        r.source,
        r.text,
        r.parts,
        r.costCredits,
        r.costAgorot,
        r.unsubscribeCode,
        r.sealed ?? null,
        r.channel ?? 'sms',
        r.spoken ?? null,
        r.template ?? null,
      );
    }
    await runCompiled(db, CompiledQuery.raw(sqliteInsert(chunk.length), params));
  }
}

/** Most rows `insertCampaignWithMessages` takes in its one statement. */
export const CAMPAIGN_WITH_MESSAGES_MAX = POSTGRES_CHUNK;

/**
 * Inserts a campaign and its first messages (at most CAMPAIGN_WITH_MESSAGES_MAX); returns the campaign's id. On
 * PostgreSQL in one statement, a round trip fewer on every send than the campaign and then its messages; on
 * SQLite, where a statement costs no round trip, as the campaign and then its messages.
 */
export async function insertCampaignWithMessages(
  db: Queryable,
  campaign: NewCampaign,
  common: Omit<MessageBatchCommon, 'campaignId'>,
  rows: NewMessage[],
): Promise<number> {
  if (dialectOf(db) === 'sqlite') return insertCampaignThenMessages(db, campaign, common, rows);
  if (rows.length <= GROUP_BATCH_ROWS) {
    const batched = inGroupBatch(db, CAMPAIGNS_IN_GROUP, { campaign, common, rows });
    if (batched) return batched;
  }
  const head = campaignValues(campaign);
  const shared = sharedValues(common);
  const { exprs, from, params } = postgresRows(rows, head.length + shared.length);
  const text =
    `with c as (insert into campaigns (${CAMPAIGN_COLUMNS.join(', ')}) values (${placeholders(1, head.length)}) returning id), ` +
    `m as (insert into messages (${COLUMN_LIST}) select c.id, ${placeholders(head.length + 1, shared.length)}, ${exprs} from c, ${from}) select id from c`;
  const result = await db.executeQuery<{ id: number }>(CompiledQuery.raw(text, [...head, ...shared, ...params]));
  return Number(result.rows[0].id);
}

// The campaign, then its messages: insertCampaignWithMessages on SQLite.
async function insertCampaignThenMessages(
  db: Queryable,
  campaign: NewCampaign,
  common: Omit<MessageBatchCommon, 'campaignId'>,
  rows: NewMessage[],
): Promise<number> {
  const campaignId = await insertCampaign(db, campaign);
  await insertMessages(db, { campaignId, ...common }, rows);
  return campaignId;
}

// A PostgreSQL send group's campaigns (pg-group-batch.ts), for sends of up to this many messages: one statement
// writes the campaigns of all its sends and their messages. Ids are drawn from the campaigns' sequence first, so
// each message row finds its campaign's id by the send's place in the batch; messages get their ids in the
// order given, as a send of its own writes them.
const GROUP_BATCH_ROWS = 100;
const CAMPAIGN_TYPES = [
  'bigint',
  'text',
  'text',
  'text',
  'text',
  'bigint',
  'int',
  'bigint',
  'bigint',
  'text',
  'bigint',
  'bigint',
];
const MESSAGE_TYPES = ['bigint', 'text', 'bigint', 'bigint', 'int', ...PG_ROW_COLUMNS.map((c) => c.type)];
const arrayParams = (types: string[], from: number) => types.map((t, i) => `$${from + i}::${t}[]`).join(', ');
const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`).join(', ');
const CAMPAIGNS_IN_GROUP_SQL =
  `with src as (select nextval('campaigns_id_seq') as id, s.o, ${names('s.c', CAMPAIGN_TYPES.length)} ` +
  `from unnest(${arrayParams(CAMPAIGN_TYPES, 1)}) with ordinality as s(${names('c', CAMPAIGN_TYPES.length)}, o)), ` +
  `c as (insert into campaigns (id, ${CAMPAIGN_COLUMNS.join(', ')}) select id, ${names('c', CAMPAIGN_TYPES.length)} from src), ` +
  `m as (insert into messages (${COLUMN_LIST}) select src.id, ${names('u.m', MESSAGE_TYPES.length)} ` +
  `from unnest($${CAMPAIGN_TYPES.length + 1}::bigint[], ${arrayParams(MESSAGE_TYPES, CAMPAIGN_TYPES.length + 2)}) ` +
  `with ordinality as u(o, ${names('m', MESSAGE_TYPES.length)}, n) join src on src.o = u.o order by u.n) ` +
  'select id from src order by o';

interface CampaignWithMessages {
  campaign: NewCampaign;
  common: Omit<MessageBatchCommon, 'campaignId'>;
  rows: NewMessage[];
}

const CAMPAIGNS_IN_GROUP: GroupBatchKind<CampaignWithMessages, number> = {
  writes: true,
  async run(db, requests) {
    const campaignColumns: unknown[][] = CAMPAIGN_TYPES.map(() => []);
    const messageColumns: unknown[][] = [[], ...MESSAGE_TYPES.map(() => [])];
    requests.forEach((request, i) => {
      campaignValues(request.campaign).forEach((v, c) => campaignColumns[c].push(v));
      const shared = sharedValues(request.common);
      for (const row of request.rows) {
        messageColumns[0].push(i + 1);
        shared.forEach((v, c) => messageColumns[c + 1].push(v));
        PG_ROW_COLUMNS.forEach((column, c) => messageColumns[c + 1 + shared.length].push(column.value(row)));
      }
    });
    const result = await db.executeQuery<{ id: number }>(
      CompiledQuery.raw(CAMPAIGNS_IN_GROUP_SQL, [...campaignColumns, ...messageColumns].map(pgArray)),
    );
    return result.rows.map((r) => Number(r.id));
  },
};

// A message counts as received for temp_bl once it is on its way (scheduled or cancelled ones do not).
const RECEIVED_STATES: MessageState[] = ['queued', 'submitting', 'submitted', 'done'];
const PHONE_CHUNK = 500;

/** The phones among `phones` that got a message from the account since `since` (temp_bl): sent or due since then. */
export async function recentlyMessagedPhones(
  db: Queryable,
  accountId: number,
  phones: string[],
  since: number,
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < phones.length; i += PHONE_CHUNK) {
    const rows = await db
      .selectFrom('messages')
      .select('phone')
      .distinct()
      .where('account_id', '=', accountId)
      .where('phone', 'in', phones.slice(i, i + PHONE_CHUNK))
      // When it went out (a scheduled send goes out long after it was accepted): submitted, else due.
      .where((eb) => eb(eb.fn.coalesce('submitted_at', 'next_attempt_at'), '>=', since))
      .where('state', 'in', RECEIVED_STATES)
      .execute();
    for (const r of rows) found.add(r.phone);
  }
  return found;
}

/** A message's identity and what it cost: enough to refund it. */
export interface ChargedMessage {
  id: number;
  account_id: number;
  campaign_id: number;
  external_id: string | null;
  phone: string;
  cost_credits: number;
  cost_agorot: number;
}

/** One page (by id) of a campaign's messages still in `state`. */
export async function campaignMessagesInState(
  db: Queryable,
  campaignId: number,
  state: MessageState,
  afterId: number,
  limit: number,
): Promise<ChargedMessage[]> {
  return db
    .selectFrom('messages')
    .select(['id', 'account_id', 'campaign_id', 'external_id', 'phone', 'cost_credits', 'cost_agorot'])
    .where('campaign_id', '=', campaignId)
    .where('state', '=', state)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Counts a campaign's messages per state. */
export async function campaignStateCounts(db: Queryable, campaignId: number): Promise<Map<MessageState, number>> {
  const rows = await db
    .selectFrom('messages')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('campaign_id', '=', campaignId)
    .groupBy('state')
    .execute();
  return new Map(rows.map((r) => [r.state, Number(r.n)]));
}

/** Moves a campaign's messages from one state to another; returns how many moved. */
export async function moveCampaignMessages(
  db: Queryable,
  campaignId: number,
  from: MessageState,
  to: MessageState,
  set: { nextAttemptAt?: number; status?: DeliveryStatus; statusAt?: number; zeroCost?: boolean } = {},
): Promise<number> {
  const res = await db
    .updateTable('messages')
    .set({
      state: to,
      ...(set.nextAttemptAt !== undefined ? { next_attempt_at: set.nextAttemptAt } : {}),
      ...(set.status !== undefined ? { status: set.status, status_at: set.statusAt ?? null } : {}),
      ...(set.zeroCost ? { cost_credits: 0, cost_agorot: 0 } : {}),
    })
    .where('campaign_id', '=', campaignId)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Sums what a campaign's messages in `state` cost (credits, agorot). */
export async function campaignCostInState(
  db: Queryable,
  campaignId: number,
  state: MessageState,
): Promise<{ credits: number; agorot: number }> {
  const row = await db
    .selectFrom('messages')
    .select([
      sql<number>`coalesce(sum(cost_credits), 0)`.as('credits'),
      sql<number>`coalesce(sum(cost_agorot), 0)`.as('agorot'),
    ])
    .where('campaign_id', '=', campaignId)
    .where('state', '=', state)
    .executeTakeFirstOrThrow();
  return { credits: Number(row.credits), agorot: Number(row.agorot) };
}

/** Marks these messages skipped with a delivery status (e.g. 201 blocked on request), zeroing their cost. */
export async function skipMessages(
  db: Queryable,
  ids: number[],
  status: DeliveryStatus,
  reason: string,
  now: number,
): Promise<void> {
  for (let i = 0; i < ids.length; i += PHONE_CHUNK) {
    await db
      .updateTable('messages')
      .set({ state: 'skipped', status, status_at: now, error: reason, cost_credits: 0, cost_agorot: 0 })
      .where('id', 'in', ids.slice(i, i + PHONE_CHUNK))
      .execute();
  }
}

/** Credits an account back (one ledger row per currency) for messages that never left. */
export async function refundAmounts(
  db: Queryable,
  accountId: number,
  credits: number,
  agorot: number,
  reason: string,
  ref: { type: string; id: number },
  now: number,
): Promise<void> {
  const base = { accountId, reason, refType: ref.type, refId: ref.id, now };
  if (credits > 0) await applyLedgerChange(db, { ...base, currency: 'credits', amount: credits });
  if (agorot > 0) await applyLedgerChange(db, { ...base, currency: 'international', amount: agorot });
}

/**
 * Refunds one message that never reached the carrier (failed before submission, or skipped at dispatch).
 * Idempotent: the message's cost is zeroed in the same guarded UPDATE, so a second call refunds nothing.
 * Does not change the message's state (the caller does). Returns what was refunded.
 */
export async function refundMessage(
  db: Queryable,
  message: Pick<ChargedMessage, 'id'>,
  reason: string,
  now: number,
): Promise<{ credits: number; agorot: number }> {
  const row = await db
    .selectFrom('messages')
    .select(['account_id', 'cost_credits', 'cost_agorot'])
    .where('id', '=', message.id)
    .executeTakeFirst();
  if (!row || (Number(row.cost_credits) === 0 && Number(row.cost_agorot) === 0)) return { credits: 0, agorot: 0 };
  const res = await db
    .updateTable('messages')
    .set({ cost_credits: 0, cost_agorot: 0 })
    .where('id', '=', message.id)
    .where('cost_credits', '=', row.cost_credits)
    .where('cost_agorot', '=', row.cost_agorot)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return { credits: 0, agorot: 0 };
  const credits = Number(row.cost_credits);
  const agorot = Number(row.cost_agorot);
  await refundAmounts(db, Number(row.account_id), credits, agorot, reason, { type: 'message', id: message.id }, now);
  return { credits, agorot };
}

/** The account and phone a removal-link code belongs to. */
export async function findUnsubscribeTarget(
  db: Queryable,
  code: string,
): Promise<{ accountId: number; phone: string } | undefined> {
  const row = await db
    .selectFrom('messages')
    .select(['account_id', 'phone'])
    .where('unsubscribe_code', '=', code)
    .executeTakeFirst();
  return row ? { accountId: Number(row.account_id), phone: row.phone } : undefined;
}
