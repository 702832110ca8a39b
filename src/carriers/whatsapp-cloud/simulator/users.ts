// The WhatsApp users the simulator knows: each has a phone number (its wa_id) and a business-scoped user id
// (BSUID, Meta's `user_id`: a country code, a dot and digits, derived here from the phone number so that it is the
// same on every run). A user who wrote "by BSUID only" keeps the phone number to itself: its webhooks carry no
// wa_id and no `from`, and a business reaches it by its BSUID (`recipient`).
import { createHash } from 'node:crypto';

export interface SimulatedUser {
  waId: string;
  userId: string;
  name: string;
  /** The phone number is withheld from the business (webhooks carry the BSUID alone). */
  phoneHidden: boolean;
  /** Shown with a hidden phone number, as a username would be. */
  username?: string;
}

// The ISO country of a phone number's calling code, for the BSUID's prefix (a few; the rest read as US).
const COUNTRIES: ReadonlyArray<[string, string]> = [
  ['972', 'IL'],
  ['44', 'GB'],
  ['49', 'DE'],
  ['33', 'FR'],
  ['91', 'IN'],
  ['55', 'BR'],
  ['1', 'US'],
];

/** The BSUID the simulator gives a phone number (digits only). */
export function bsuidFor(waId: string): string {
  const country = COUNTRIES.find(([code]) => waId.startsWith(code))?.[1] ?? 'US';
  const digits = BigInt(`0x${createHash('sha256').update(`bsuid:${waId}`).digest('hex').slice(0, 15)}`).toString();
  return `${country}.${digits}`;
}

/** Whether a recipient is written as a BSUID (`IL.123...`) rather than a phone number. */
export function isBsuid(recipient: string): boolean {
  return /^[A-Z]{2}\.[A-Za-z0-9.]+$/.test(recipient);
}

/** A phone number as WhatsApp keys it: digits only ('+972 50-123' -> '97250123'). */
export function waIdOf(phone: string): string {
  return phone.replace(/[\s()+-]/g, '');
}

/** The users met so far, by phone number and by BSUID. */
export class UserDirectory {
  private readonly byWaId = new Map<string, SimulatedUser>();
  private readonly byUserId = new Map<string, SimulatedUser>();

  /** The user of this phone number, made on first sight. */
  ofPhone(waId: string): SimulatedUser {
    let user = this.byWaId.get(waId);
    if (!user) {
      user = { waId, userId: bsuidFor(waId), name: `User ${waId.slice(-4)}`, phoneHidden: false };
      this.byWaId.set(waId, user);
      this.byUserId.set(user.userId, user);
    }
    return user;
  }

  /** The user of a BSUID, when one is known. */
  ofUserId(userId: string): SimulatedUser | undefined {
    return this.byUserId.get(userId);
  }
}
