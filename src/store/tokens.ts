// API token rows: stored as SHA-256 only; at most MAX_ACTIVE_TOKENS active per account.
import { PostgresAdapter, type Selectable } from 'kysely';
import { runPrepared, type Queryable } from './engine/db.ts';
import { readOncePerGroup } from './engine/pg-group-commit.ts';
import type { Account } from './accounts.ts';
import type { ApiTokenTable } from './schema/index.ts';
import { MAX_ACTIVE_TOKENS } from '../domain/token.ts';

export type ApiToken = Selectable<ApiTokenTable>;

export interface TokenWithAccount {
  token: Pick<ApiToken, 'expires_at' | 'superseded_at'>;
  account: Account;
}

/** The token with this hash and its account, in one query (what authentication needs: every request runs it). */
export function findTokenByHash(db: Queryable, tokenHash: string): Promise<TokenWithAccount | undefined> {
  return readOncePerGroup(db, `token:${tokenHash}`, async () => {
    const [row] = await runPrepared(db, tokenByHashQuery, [tokenHash]);
    if (!row) return undefined;
    const { t_expires_at, t_superseded_at, ...account } = row;
    return { token: { expires_at: t_expires_at, superseded_at: t_superseded_at }, account };
  });
}

function tokenByHashQuery(db: Queryable) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select([
      't.expires_at as t_expires_at',
      't.superseded_at as t_superseded_at',
      'a.id',
      'a.username',
      'a.name',
      'a.credits',
      'a.intl_agorot',
      'a.is_reseller',
      'a.parent_id',
      'a.time_zone',
      'a.ip_check',
      'a.created_at',
      'a.suspended_at',
      'a.suspended_by',
      'a.closed_at',
    ])
    .where('t.token_hash', '=', '?');
}

export interface NewToken {
  accountId: number;
  tokenHash: string;
  last4: string;
  baseName: string;
  now: number;
  expiresAt: number;
}

/**
 * Holds the account row until the transaction ends, so mints for one account run one at a time (on PostgreSQL;
 * SQLite has one writer). NO KEY UPDATE: other mints wait, inserts referencing the account do not.
 */
async function serializeMints(db: Queryable, accountId: number): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate().execute();
}

/**
 * Stores a token, unless the account already has MAX_ACTIVE_TOKENS active ones: then nothing is stored or
 * invalidated and the answer is null. Names are unique per account. Run it in a transaction: concurrent mints
 * for one account wait for each other there, so the limit holds under concurrency.
 */
export async function insertToken(db: Queryable, t: NewToken): Promise<{ id: number; name: string } | null> {
  await serializeMints(db, t.accountId);
  const active = await listActiveTokens(db, t.accountId, t.now);
  if (active.length >= MAX_ACTIVE_TOKENS) return null;
  const taken = await db
    .selectFrom('api_tokens')
    .select('name')
    .where('account_id', '=', t.accountId)
    .where('name', 'like', `${t.baseName}%`)
    .execute();
  const names = new Set(taken.map((r) => r.name));
  let name = t.baseName;
  for (let i = 2; names.has(name); i++) name = `${t.baseName} (${i})`;
  const row = await db
    .insertInto('api_tokens')
    .values({
      account_id: t.accountId,
      name,
      token_hash: t.tokenHash,
      last4: t.last4,
      created_at: t.now,
      expires_at: t.expiresAt,
      superseded_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), name };
}

/** Active (not expired, not superseded: a state only older versions left) tokens, oldest first. */
export async function listActiveTokens(db: Queryable, accountId: number, now: number): Promise<ApiToken[]> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .where('superseded_at', 'is', null)
    .orderBy('id', 'asc')
    .execute();
}

/** All tokens of an account, newest first (for listings). */
export async function listTokens(db: Queryable, accountId: number): Promise<ApiToken[]> {
  return db.selectFrom('api_tokens').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').execute();
}

/** Deletes a token by name; it stops working immediately. Returns whether one was deleted. */
export async function deleteToken(db: Queryable, accountId: number, name: string): Promise<boolean> {
  const res = await db
    .deleteFrom('api_tokens')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
