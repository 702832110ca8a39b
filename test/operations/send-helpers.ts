// Shared setup for the send-path suites: a service with the public pages, accounts with a verified sender,
// and direct reads of the store to check what a call wrote.
import assert from 'node:assert/strict';
import { publicPagesComponent } from '../../src/http/public-pages.ts';
import type { Component } from '../../src/service.ts';
import { startTestService, type ApiCallOptions, type TestService } from '../helpers/service.ts';
import type { StoreTarget } from '../helpers/stores.ts';

export const xmlStatus = (text: string) => Number(/<status>(-?\d+)<\/status>/.exec(text)?.[1]);
export const xmlField = (text: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];

/** Starts a service with the public pages (and any extra components). */
export function startSendingService(
  target: StoreTarget,
  options: { clock?: () => number; components?: Component[]; env?: Record<string, string> } = {},
): Promise<TestService> {
  return startTestService(target, { ...options, components: [publicPagesComponent(), ...(options.components ?? [])] });
}

export interface Sender {
  username: string;
  token: string;
  /** Calls an operation as this account (user.username filled in). */
  call(root: string, doc: Record<string, unknown>, options?: ApiCallOptions): Promise<Record<string, any>>;
  /** Sends an sms from the verified source "Yona". */
  sms(doc: Record<string, unknown>, options?: ApiCallOptions): Promise<Record<string, any>>;
  /** Current domestic credits and international agorot. */
  balance(): Promise<{ credits: number; agorot: number }>;
}

/** An account with `credits`, a token and the verified sender "Yona". */
export async function newSender(
  t: TestService,
  username: string,
  credits = 1000,
  extra: string[] = [],
): Promise<Sender> {
  await t.admin('create-account', username, '--password', 'secret-pw', '--credits', String(credits), ...extra);
  const lines = await t.admin('create-token', username);
  const token = lines[lines.length - 1];
  await t.admin('verify-sender', username, 'Yona');
  const call: Sender['call'] = (root, doc, options = {}) =>
    t.api(root, { user: { username }, ...doc }, { token, ...options });
  return {
    username,
    token,
    call,
    sms: (doc, options) => call('sms', { source: 'Yona', message: 'hello', ...doc }, options),
    async balance() {
      const row = await t.service.store.db
        .selectFrom('accounts')
        .select(['credits', 'intl_agorot'])
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      return { credits: Number(row.credits), agorot: Number(row.intl_agorot) };
    },
  };
}

/** A reseller sending as `Shop` whose sub-account sends as `SubShop`; returns the reseller's token. */
export async function newResellerWithSubSender(t: TestService, reseller: string, sub: string): Promise<string> {
  await t.admin('create-account', reseller, '--password', 'secret-pw', '--reseller');
  const token = (await t.admin('create-token', reseller)).at(-1)!;
  await t.admin('create-account', sub, '--password', 'secret-pw', '--parent', reseller);
  await t.admin('verify-sender', reseller, 'Shop');
  await t.admin('verify-sender', sub, 'SubShop');
  return token;
}

/** The credit ledger amounts of an account, largest first. */
export async function creditLedger(t: TestService, username: string): Promise<number[]> {
  const entries = await t.service.store.db
    .selectFrom('ledger_entries')
    .innerJoin('accounts', 'accounts.id', 'ledger_entries.account_id')
    .select('ledger_entries.amount')
    .where('accounts.username', '=', username)
    .where('ledger_entries.currency', '=', 'credits')
    .execute();
  return entries.map((e) => Number(e.amount)).sort((a, b) => b - a);
}

/** Number of message rows of an account. */
export async function messageCount(t: TestService, username: string): Promise<number> {
  const rows = await t.service.store.db
    .selectFrom('messages')
    .innerJoin('accounts', 'accounts.id', 'messages.account_id')
    .select('messages.id')
    .where('accounts.username', '=', username)
    .execute();
  return rows.length;
}

/** The message rows of a campaign, in id order. */
export function messagesOf(t: TestService, campaignId: number) {
  return t.service.store.db
    .selectFrom('messages')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .orderBy('id')
    .execute();
}

/** The campaign row. */
export function campaignRow(t: TestService, campaignId: number) {
  return t.service.store.db.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirstOrThrow();
}

/** Row counts of the tables a send writes (to prove a call wrote nothing). */
export async function sendTableCounts(t: TestService): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['campaigns', 'messages', 'ledger_entries', 'short_links', 'sender_verifications'] as const) {
    const row = await t.service.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

/**
 * After 50 concurrent one-credit sends by an account that had 10 credits: exactly 10 accepted and 40 refused
 * with 4, the balance at 0, ten messages, and a ledger of the opening balance and the ten debits (a refused
 * debit leaves no entry behind).
 */
export async function assertTenOfFiftyAccepted(t: TestService, sender: Sender, statuses: number[]): Promise<void> {
  assert.equal(statuses.filter((x) => x === 0).length, 10);
  assert.equal(statuses.filter((x) => x === 4).length, 40);
  assert.equal((await sender.balance()).credits, 0);
  assert.equal(await messageCount(t, sender.username), 10);
  assert.deepEqual(await creditLedger(t, sender.username), [10, ...Array(10).fill(-1)]);
}
