// A send no carrier can take is refused at accept (5), before anything is written or charged: texts need an SMS
// carrier, calls (a `tts` block) a voice trunk. Which channels have one is the node's view (ctx.coverage).
import { ApiError } from '../../domain/errors.ts';
import type { OperationContext, SendChannel } from '../types.ts';

/** What of a send tells its channels: its calls (a `tts` block), if any. */
interface Send {
  calls?: { type: 2 | 3 | 4 };
  /** A send on one channel of its own (WhatsApp): its messages all go out on it. */
  channel?: SendChannel;
}

/** The channels a send goes out on: texts unless a voice-only `tts` (type 4), calls with a `tts` block. */
function channelsOf(draft: Send): SendChannel[] {
  if (draft.channel !== undefined) return [draft.channel];
  return [...(draft.calls?.type === 4 ? [] : ['sms' as const]), ...(draft.calls ? ['voice' as const] : [])];
}

/** Throws 5 (and has it logged) when one of the send's channels has no carrier to take it. */
export function requireCarriers(ctx: OperationContext, draft: Send): void {
  const { coverage } = ctx;
  if (!coverage) return;
  for (const channel of channelsOf(draft)) {
    const why = coverage.unserved(channel);
    if (why === undefined) continue;
    coverage.refused(channel, ctx.account.username, why);
    throw new ApiError(5, `No permission to send SMS at this time: ${why}`, draft.channel ? { reason: 6 } : {});
  }
}
