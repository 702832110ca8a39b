// Seeds the store with messages, inbound messages, push URLs and a node at given instants, for the operator
// console's overview and margins tests: the figures those pages show are then known exactly.
import type { DeliveryStatus } from '../../../src/domain/status.ts';
import type { TestService } from '../../helpers/service.ts';

export interface SeededMessage {
  account: string;
  createdAt: number;
  submittedAt?: number | null;
  statusAt?: number | null;
  state?: 'queued' | 'submitted' | 'done' | 'failed';
  status?: number | null;
  carrier?: string | null;
  channel?: string;
  parts?: number;
  credits?: number;
  agorot?: number;
  /** Thousandths of an agora (null: the carrier has no price). */
  carrierCost?: number | null;
  attempts?: number;
  nextAttemptAt?: number;
}

async function accountId(t: TestService, username: string): Promise<number> {
  const row = await t.service.store.db
    .selectFrom('accounts')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Inserts `count` copies of a message (one campaign per call). */
export async function seedMessages(t: TestService, count: number, m: SeededMessage): Promise<void> {
  const db = t.service.store.db;
  const account = await accountId(t, m.account);
  const campaign = await db
    .insertInto('campaigns')
    .values({
      account_id: account,
      name: null,
      kind: 'sms',
      source: 'Yona',
      state: 'sent',
      scheduled_at: null,
      recipients: count,
      credits_charged: 0,
      agorot_charged: 0,
      options: '{}',
      created_at: m.createdAt,
      released_at: m.createdAt,
      finished_at: null,
      cancelled_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rows = Array.from({ length: count }, (_, i) => ({
    campaign_id: Number(campaign.id),
    account_id: account,
    external_id: null,
    phone: `97250${String(1_000_000 + i).padStart(7, '0')}`,
    source: 'Yona',
    text: 'seeded',
    parts: m.parts ?? 1,
    cost_credits: m.credits ?? 0,
    cost_agorot: m.agorot ?? 0,
    state: m.state ?? 'done',
    status: (m.status ?? null) as DeliveryStatus | null,
    status_at: m.statusAt ?? null,
    attempts: m.attempts ?? (m.submittedAt ? 1 : 0),
    next_attempt_at: m.nextAttemptAt ?? m.createdAt,
    lease_until: null,
    carrier: m.carrier ?? null,
    error: null,
    created_at: m.createdAt,
    submitted_at: m.submittedAt ?? null,
    channel: m.channel ?? 'sms',
    carrier_cost: m.carrierCost === undefined ? null : m.carrierCost,
  }));
  await db.insertInto('messages').values(rows).execute();
}

export async function seedInbound(t: TestService, account: string, count: number, at: number): Promise<void> {
  const id = await accountId(t, account);
  await t.service.store.db
    .insertInto('inbound_messages')
    .values(
      Array.from({ length: count }, (_, i) => ({
        account_id: id,
        phone: `9725200000${i}`,
        dest: '0501111111',
        text: 'hi',
        carrier: 'alpha',
        received_at: at,
      })),
    )
    .execute();
}

export async function seedPushUrl(
  t: TestService,
  account: string,
  o: { type: 'dlr' | 'incoming_sms'; url: string; disabled: boolean; failures: number; lastFailureAt: number },
): Promise<void> {
  await t.service.store.db
    .insertInto('push_registrations')
    .values({
      account_id: await accountId(t, account),
      type: o.type,
      url: o.url,
      state: o.disabled ? 'disabled' : 'registered',
      consecutive_failures: o.failures,
      retry_at: 0,
      last_failure_at: o.lastFailureAt,
      disabled_at: o.disabled ? o.lastFailureAt : null,
      disabled_reason: o.disabled ? 'too many failures' : null,
      created_at: o.lastFailureAt - 3600_000,
      deleted_at: null,
    })
    .execute();
}
