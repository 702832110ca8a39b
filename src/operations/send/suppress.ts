// Send-time suppression: numbers on the account's blocklist (all blocked -> 8) and, with temp_bl, numbers
// that got a message from the account in the last n days (all skipped -> 715). Looked up in chunks.
import { ApiError } from '../../domain/errors.ts';
import { blockedAmong } from '../../store/blocklist.ts';
import { recentlyMessagedPhones } from '../../store/messages.ts';
import type { OperationContext } from '../types.ts';
import { rejection, type Recipient, type Rejected } from './destinations.ts';

const DAY_MS = 24 * 3600_000;
const CHUNK = 1000;

async function inChunks(phones: string[], lookup: (chunk: string[]) => Promise<Set<string>>): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < phones.length; i += CHUNK) {
    for (const p of await lookup(phones.slice(i, i + CHUNK))) found.add(p);
  }
  return found;
}

function distinctPhones(recipients: Recipient[]): string[] {
  return [...new Set(recipients.map((r) => r.phone))];
}

/** Removes blocked and (with temp_bl) recently messaged recipients, listing them in `rejected`. */
export async function suppressRecipients(
  ctx: OperationContext, recipients: Recipient[], tempBlDays: number | null, rejected: Rejected[],
): Promise<Recipient[]> {
  if (recipients.length === 0) return recipients;
  const accountId = ctx.account.id;
  const blocked = await inChunks(distinctPhones(recipients), (chunk) => blockedAmong(ctx.db, accountId, chunk));
  let kept = recipients;
  if (blocked.size > 0) {
    kept = [];
    for (const r of recipients) {
      if (!blocked.has(r.phone)) kept.push(r);
      else rejected.push(rejection(r.phone, r.externalId, 'blocked'));
    }
    if (kept.length === 0) throw new ApiError(8, 'All numbers are on a blocked list', { rejected });
  }
  if (tempBlDays === null) return kept;
  const since = ctx.now - tempBlDays * DAY_MS;
  const recent = await inChunks(distinctPhones(kept), (chunk) => recentlyMessagedPhones(ctx.db, accountId, chunk, since));
  if (recent.size === 0) return kept;
  const fresh: Recipient[] = [];
  for (const r of kept) {
    if (!recent.has(r.phone)) fresh.push(r);
    else rejected.push(rejection(r.phone, r.externalId, 'temp_bl'));
  }
  if (fresh.length === 0) throw new ApiError(715, `All numbers have been temporarily blocked (temp_bl ${tempBlDays} days)`, { rejected });
  return fresh;
}
