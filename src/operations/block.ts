// Blocks that come from outside an API request, each in a transaction of its own: the removal link `/u/:code`
// and the console's blocklist page. What a block does is store/blocklist.ts's blockNumbers, as for addNumBL and
// a removal keyword reply; the pusher is woken once the transaction committed.
import { HeldSignals } from '../signals.ts';
import { blockNumbers, type Block } from '../store/blocklist.ts';
import type { Store } from '../store/engine/db.ts';
import { findUnsubscribeTarget } from '../store/messages.ts';
import type { Signals } from './types.ts';

/** Blocks numbers in a transaction of its own; returns the numbers newly blocked. */
export async function blockNow(store: Store, signals: Signals, block: Block): Promise<string[]> {
  const held = new HeldSignals();
  const added = await store.db.transaction().execute((trx) => blockNumbers(trx, held, block));
  held.release(signals);
  return added;
}

/** The removal link: blocks the phone the code was sent to for the account that sent it; false for an unknown code. */
export async function unsubscribeByCode(store: Store, signals: Signals, code: string, now: number): Promise<boolean> {
  const target = await findUnsubscribeTarget(store.db, code);
  if (!target) return false;
  await blockNow(store, signals, {
    accountId: target.accountId,
    phones: [target.phone],
    source: 'unsubscribe-link',
    now,
  });
  return true;
}
