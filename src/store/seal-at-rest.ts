// The sealing pass `yona serve` and `yona admin` run at start: secrets an earlier version stored in clear (a
// carrier's password in its settings document, an account's push signing secret) are sealed with the secret key.
// Idempotent (a sealed value carries its `sealed:` prefix and is left alone), and safe with several nodes starting
// at once: each row is rewritten only if it still holds what was read.
import { isSealedAtRest, sealAtRest, sealFields } from '../domain/sealed.ts';
import type { Queryable } from './engine/db.ts';

/** What a sealing pass sealed. */
export interface SealedAtStart {
  /** Carriers whose settings held a secret in clear. */
  carriers: number;
  /** Push signing secrets that were in clear. */
  pushSecrets: number;
}

/**
 * Seals every secret still in clear; `secretsOf` names a protocol's secret settings, `key` gives the secret key
 * (read only when there is something to seal).
 */
export async function sealClearSecrets(
  db: Queryable,
  key: () => Buffer,
  secretsOf: (protocol: string) => readonly string[],
): Promise<SealedAtStart> {
  const sealed: SealedAtStart = { carriers: 0, pushSecrets: 0 };
  for (const row of await db.selectFrom('carriers').select(['id', 'protocol', 'settings']).execute()) {
    const fields = secretsOf(row.protocol);
    if (fields.length === 0) continue;
    let document: unknown;
    try {
      document = JSON.parse(row.settings);
    } catch {
      continue; // refused, with its reason, where the carrier is read
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) continue;
    const clear = document as Record<string, unknown>;
    if (!fields.some((f) => typeof clear[f] === 'string' && !isSealedAtRest(clear[f] as string))) continue;
    const res = await db
      .updateTable('carriers')
      .set({ settings: JSON.stringify(sealFields(key(), clear, fields)) })
      .where('id', '=', row.id)
      .where('settings', '=', row.settings)
      .executeTakeFirst();
    sealed.carriers += Number(res.numUpdatedRows);
  }
  for (const row of await db.selectFrom('push_secrets').select(['id', 'secret']).execute()) {
    if (isSealedAtRest(row.secret)) continue;
    const res = await db
      .updateTable('push_secrets')
      .set({ secret: sealAtRest(key(), row.secret) })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .executeTakeFirst();
    sealed.pushSecrets += Number(res.numUpdatedRows);
  }
  return sealed;
}
