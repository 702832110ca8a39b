// The text a send carries: `tag` glued in front, short links placed where the message says `[id]`, and the
// reply-to-remove line for add_unsubscribe 2 (the removal link of 3 is per recipient: see accept.ts).
import { newPublicCode } from '../../domain/codes.ts';
import { ApiError } from '../../domain/errors.ts';
import { linkPlaceholderProblem, placeLinks } from '../../domain/links.ts';
import { normalizePhone, toNational } from '../../domain/phone.ts';
import { shortLinkUrl, UNSUBSCRIBE_REPLY_LINE, type UnsubscribeMode } from '../../domain/sending.ts';
import { isVerifiedSender } from '../../store/senders.ts';
import type { OperationContext } from '../types.ts';
import type { LinkSpec } from './options.ts';

/** Links with the codes of their short links. */
export type CodedLink = LinkSpec & { code: string };

/** Gives each link a fresh unguessable code. */
export function codeLinks(links: LinkSpec[]): CodedLink[] {
  return links.map((l) => ({ ...l, code: newPublicCode() }));
}

/** The message as sent (before per-recipient dynamic fields and removal links); 980 when its links and placeholders differ. */
export function composeText(o: {
  tag?: string;
  message: string;
  links: CodedLink[];
  unsubscribe: UnsubscribeMode;
  publicUrl: string;
}): string {
  const text = `${o.tag ?? ''}${o.message}`;
  const problem = linkPlaceholderProblem(
    text,
    o.links.map((l) => l.key),
  );
  if (problem) throw new ApiError(980, `Invalid link: ${problem}`);
  const urls = new Map(o.links.map((l) => [l.key, shortLinkUrl(o.publicUrl, l.code)]));
  const body = placeLinks(text, urls);
  return o.unsubscribe === 'reply' ? body + UNSUBSCRIBE_REPLY_LINE : body;
}

/** Requires the source to be a verified sender of the account (515); a number may be written with or without its 0. */
export async function requireVerifiedSender(ctx: OperationContext, source: string, field = 'source'): Promise<void> {
  if (await isVerifiedSender(ctx.db, ctx.account.id, source)) return;
  if (/^\d+$/.test(source)) {
    const n = normalizePhone(source, { allowInternational: false });
    const national = n.ok ? toNational(n.e164) : undefined;
    if (national && national !== source && (await isVerifiedSender(ctx.db, ctx.account.id, national))) return;
  }
  // A phone number verifies itself through verify_phone; a name (letters) only the operator can verify: the
  // customer is told to ask its provider, the operator's log line has the command.
  const numeric = /^\d+$/.test(source);
  throw new ApiError(
    515,
    `Unverified source: "${source}" (${field}) is not a verified sender of this account; ${numeric ? 'verify the number with verify_phone' : 'ask your provider to verify this sender'}`,
    {},
    numeric ? undefined : `yona admin verify-sender ${ctx.account.username} ${source}`,
  );
}
