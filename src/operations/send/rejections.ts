// Destinations a send left out, as its reply reports them: the first MAX_LISTED_REJECTIONS in full, and every
// one counted by reason, so a list of a million landlines costs a few counters, not a million objects.
import type { PhoneRejection } from '../../domain/phone.ts';
import type { RequestStatus } from '../../domain/status.ts';

/** Most rejected destinations a reply lists; the rest are only counted (`rejected_total`, `rejected_by_reason`). */
export const MAX_LISTED_REJECTIONS = 1000;

/** Why a destination was not sent to. */
export type RejectionReason = PhoneRejection | 'not_mobile' | 'blocked' | 'temp_bl' | 'outside_window';

/** A destination left out, as the reply lists it. */
export interface Rejected {
  phone: string;
  id?: string;
  reason: RejectionReason;
  status: RequestStatus;
}

/** Status a rejection reason corresponds to (the status of the whole send when every destination has it). */
export const REJECTION_STATUS: Record<RejectionReason, RequestStatus> = {
  too_short: 9,
  too_long: 9,
  invalid: 933,
  international_not_allowed: 933,
  not_mobile: 933,
  blocked: 8,
  temp_bl: 715,
  // WhatsApp free text to a user whose 24-hour window is not open: a template is needed (reasons 7 and 8).
  outside_window: 7,
};

/** The destinations a send left out: the first ones listed, all of them counted by reason (bounded memory). */
export class Rejections {
  /** The first MAX_LISTED_REJECTIONS, in the order they were met. */
  readonly listed: Rejected[] = [];
  total = 0;
  readonly byReason: Partial<Record<RejectionReason, number>> = {};

  /** Records one left-out destination: the phone as given, the caller's id (when any) and why. */
  add(phone: string, externalId: string | null, reason: RejectionReason): void {
    this.total++;
    this.byReason[reason] = (this.byReason[reason] ?? 0) + 1;
    if (this.listed.length >= MAX_LISTED_REJECTIONS) return;
    const status = REJECTION_STATUS[reason];
    this.listed.push(externalId === null ? { phone, reason, status } : { phone, id: externalId, reason, status });
  }

  /** The status for a send none of whose destinations could be used (9 when any was a length problem, else 933). */
  noValidDestinationStatus(): 7 | 9 | 933 {
    // WhatsApp free text none of whose users has an open window: a template is needed.
    if (this.byReason.outside_window === this.total && this.total > 0) return 7;
    return this.byReason.too_short || this.byReason.too_long ? 9 : 933;
  }

  /** The reply's fields: `rejected` (the listed ones), `rejected_total`, `rejected_by_reason`; none when nothing was left out. */
  replyFields(): {
    rejected?: Rejected[];
    rejected_total?: number;
    rejected_by_reason?: Partial<Record<RejectionReason, number>>;
  } {
    if (this.total === 0) return {};
    return { rejected: this.listed, rejected_total: this.total, rejected_by_reason: { ...this.byReason } };
  }
}
