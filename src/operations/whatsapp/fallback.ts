// A WhatsApp send's SMS fallback, checked before anything is written: channel "sms", a verified SMS sender of the
// account, and a wait in whole seconds (2, or 515 for an unverified sender, with reason 12).
import { ApiError } from '../../domain/errors.ts';
import { WA_REASON } from '../../domain/whatsapp-reasons.ts';
import { requireVerifiedSender } from '../send/compose.ts';
import { checkSource } from '../send/options.ts';
import type { OperationContext } from '../types.ts';
import {
  DEFAULT_FALLBACK_SECONDS,
  MAX_FALLBACK_SECONDS,
  MIN_FALLBACK_SECONDS,
  type FallbackSpec,
  type GivenFallback,
} from './fields.ts';

function invalid(detail: string): ApiError {
  return new ApiError(2, `Invalid value for field fallback: ${detail}`, { reason: WA_REASON.FALLBACK });
}

/** The fallback a send asked for, checked; undefined when it asked for none. */
export async function checkFallback(
  ctx: OperationContext,
  given: GivenFallback | undefined,
): Promise<FallbackSpec | undefined> {
  if (given === undefined) return undefined;
  if ((given.channel ?? 'sms') !== 'sms') throw invalid(`channel must be "sms", got "${given.channel}"`);
  if (!given.source) throw invalid('source (the verified SMS sender) is missing');
  let afterSeconds = DEFAULT_FALLBACK_SECONDS;
  if (given.afterSeconds !== undefined && given.afterSeconds !== '') {
    if (!/^\d+$/.test(given.afterSeconds))
      throw invalid(`after_seconds must be whole seconds, got "${given.afterSeconds}"`);
    afterSeconds = Number(given.afterSeconds);
    if (afterSeconds < MIN_FALLBACK_SECONDS || afterSeconds > MAX_FALLBACK_SECONDS)
      throw invalid(`after_seconds must be ${MIN_FALLBACK_SECONDS} to ${MAX_FALLBACK_SECONDS}, got ${afterSeconds}`);
  }
  try {
    const source = checkSource(given.source, 'fallback.source');
    await requireVerifiedSender(ctx, source, 'fallback.source');
    return { channel: 'sms', source, afterSeconds };
  } catch (err) {
    if (err instanceof ApiError) throw new ApiError(err.status, err.message, { reason: WA_REASON.FALLBACK }, err.hint);
    throw err;
  }
}
