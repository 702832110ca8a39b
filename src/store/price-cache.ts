// The prices a send is priced with, kept in memory on the embedded store: reading the rate card and the account's
// own prices was one statement in each accept (about a tenth of its CPU). What is kept is read again when a price
// was set in this process (pricesWritten), when another connection committed to the store (`yona admin` from
// another process: SQLite's data_version), and at the latest a second after it was read (a price change rolled
// back after a send had read it). PostgreSQL's nodes read them in each send (their group batch, prices.ts).
import type { AccountPrices, RateCard } from '../domain/rate-card.ts';
import type { Queryable } from './types.ts';
import { accountPrices, pricesWritten, type SendPrices, sendPrices } from './prices.ts';

/** How long prices read are used at most. */
const KEEP_MS = 1000;
/** Accounts whose prices are kept at most (more: all are read again). */
const MAX_ACCOUNTS = 10_000;

export class SendPriceCache {
  private card: RateCard | undefined;
  private readonly own = new Map<number, AccountPrices>();
  private readAt = 0;
  private written = -1;
  private storeVersion = -1;

  /** `storeVersion` changes when another connection commits to the store. */
  constructor(
    private readonly storeVersionNow: () => number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The rate card and the account's own prices, as `sendPrices` reads them. */
  async read(db: Queryable, accountId: number): Promise<SendPrices> {
    const now = this.clock();
    const version = this.storeVersionNow();
    if (
      this.card === undefined ||
      version !== this.storeVersion ||
      pricesWritten() !== this.written ||
      now - this.readAt >= KEEP_MS ||
      this.own.size >= MAX_ACCOUNTS
    ) {
      this.written = pricesWritten();
      this.storeVersion = version;
      this.readAt = now;
      this.own.clear();
      const read = await sendPrices(db, accountId);
      this.card = read.card;
      this.own.set(accountId, read.own);
      return read;
    }
    let own = this.own.get(accountId);
    if (own === undefined) {
      own = await accountPrices(db, accountId);
      this.own.set(accountId, own);
    }
    return { card: this.card, own };
  }
}
