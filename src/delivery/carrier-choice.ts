// The dispatcher's choice of a carrier for one message, as a pure decision over a snapshot: the carriers of the
// message's route (weights, whether each is bound, its daily cap and what is used of it, its throttling and the
// line waiting for its permits) and the carriers already tried on this walk with their answers. It answers which
// carrier to submit to next, or that the message was accepted, waits (retry later), or fails with which status.
// The dispatcher builds the snapshot, carries the decision out, and asks again after each answer.
import type { SubmitResult } from '../carriers/types.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';

/** One carrier of the message's route as the dispatcher sees it now. */
export interface CarrierView {
  name: string;
  /** Its share of the route's traffic; undefined: taken only when the carriers before it cannot. */
  weight?: number;
  /** It can take a submit now (a bind is up). */
  up: boolean;
  /** Its daily cap in parts; undefined: none. */
  dailyCap?: number;
  /** Parts counted against it today, as far as this node knows. */
  usedToday: number;
  /** It pushes back (throttled by the SMSC). */
  throttled: boolean;
  /** Messages waiting in line for its permits. */
  waiting: number;
}

/** A carrier considered on this walk: refused the message (`result`), or passed over (backlogged or capped). */
export interface TriedCarrier {
  carrier: string;
  result?: SubmitResult;
}

/** Everything the choice depends on, read by the dispatcher just before it asks. */
export interface ChoiceSnapshot {
  /** The route's carriers this node runs, in the route's order (the fallback carrier when no route matches). */
  route: readonly CarrierView[];
  /** Spreads a weighted route: the same key always starts on the same carrier (the message id). */
  key: number;
  parts: number;
  /** A call (voice trunks), for the wording of a failure. */
  call: boolean;
  /** Attempts of the message so far, this one included. */
  attempts: number;
  now: number;
  policy: ChoicePolicy;
  /** The carriers already considered for this message on this walk, in order; the last answer last. */
  tried: readonly TriedCarrier[];
}

/** The delivery settings the choice applies. */
export interface ChoicePolicy {
  /** Messages in a throttled carrier's line beyond which a later carrier of the route is preferred. */
  throttleBacklog: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

/** What the dispatcher does with the message next. */
export type CarrierDecision =
  | {
      kind: 'submit';
      carrier: string;
      /** Carriers passed over for this one (backlogged, or their cap does not fit the parts). */
      skipped?: string[];
      /** The route's first carrier, down, passed over for one that is bound (first decision only). */
      diverted?: string;
    }
  | { kind: 'accepted'; carrier: string }
  | {
      kind: 'retry';
      carrier: string | null;
      at: number;
      error: string;
      /** The message only waited (every carrier capped before any refused it): not an attempt. */
      uncounted?: boolean;
      diverted?: string;
    }
  | {
      kind: 'fail';
      carrier: string | null;
      status: DeliveryStatus;
      error: string;
      /** The carrier's own code for the failure (Meta's), kept on the message. */
      carrierError?: string;
    };

/** How long a message waits when every carrier of its route has reached its daily cap (at most the backoff). */
export const CAPPED_WAIT_MS = 60_000;

/** The next step for one message: which carrier to submit to, or accepted, retry later, or fail. */
export function chooseCarrier(s: ChoiceSnapshot): CarrierDecision {
  const order = walkOrder(s.route, s.key);
  if (order.length === 0) {
    const error = s.call ? 'no voice trunk routes this destination' : 'no carrier routes this destination';
    return { kind: 'fail', carrier: null, status: DELIVERY.FAILED, error };
  }
  const last = s.tried.length > 0 ? s.tried[s.tried.length - 1] : undefined;
  const remaining = s.tried.length > 0 ? order.filter((c) => !s.tried.some((t) => t.carrier === c.name)) : order;
  if (last?.result) {
    const result = last.result;
    if (result.ok) return { kind: 'accepted', carrier: last.carrier };
    // A refusal moves on only when the carrier took nothing of it, for its own reasons, and a later one fits.
    if (!result.transient || !result.elsewhere || !remaining.some((c) => fits(c, s.parts)))
      return answerOutcome(s, last.carrier, result);
  }
  let skipped: string[] | undefined;
  for (let i = 0; i < remaining.length; i++) {
    const c = remaining[i];
    // A backlogged carrier is passed over for a later one that is bound, not backlogged and under its cap.
    const passOver = (backlogged(c, s.policy) && laterReady(remaining, i + 1, s)) || !fits(c, s.parts);
    if (passOver) {
      (skipped ??= []).push(c.name);
      continue;
    }
    const diverted = divertedFrom(s, order);
    return {
      kind: 'submit',
      carrier: c.name,
      ...(skipped ? { skipped } : {}),
      ...(diverted === undefined ? {} : { diverted }),
    };
  }
  return cappedWait(s, order);
}

/**
 * The order a route's carriers are tried in: a weighted route starts with the carrier its key falls on, then the
 * rest in the route's order; those bound now come first (a carrier down is passed over while another can take it).
 */
export function walkOrder(route: readonly CarrierView[], key: number): readonly CarrierView[] {
  if (route.length <= 1) return route;
  const first = weightedFirst(route, key);
  const weighted = first === undefined || first === route[0] ? route : [first, ...route.filter((c) => c !== first)];
  if (weighted.every((c) => c.up) || !weighted.some((c) => c.up)) return weighted;
  return [...weighted.filter((c) => c.up), ...weighted.filter((c) => !c.up)];
}

/** The carrier a weighted list starts with for this key (random without one); undefined when none has a weight. */
export function weightedFirst<T extends { weight?: number }>(list: readonly T[], key?: number): T | undefined {
  let total = 0;
  let lastWeighted: T | undefined;
  for (const c of list)
    if ((c.weight ?? 0) > 0) {
      total += c.weight ?? 0;
      lastWeighted = c;
    }
  if (lastWeighted === undefined) return undefined;
  // A Weyl sequence over the key: consecutive ids spread evenly over the weights.
  let at = key === undefined ? Math.random() * total : fraction(key) * total;
  for (const c of list) {
    if ((c.weight ?? 0) <= 0) continue;
    at -= c.weight ?? 0;
    if (at < 0) return c;
  }
  return lastWeighted;
}

const GOLDEN = 0.6180339887498949;

function fraction(key: number): number {
  const x = key * GOLDEN;
  return x - Math.floor(x);
}

// On the first decision, the carrier the route starts with when it is down and another bound one comes first.
function divertedFrom(s: ChoiceSnapshot, order: readonly CarrierView[]): string | undefined {
  if (s.tried.length > 0 || s.route.length <= 1) return undefined;
  const head = weightedFirst(s.route, s.key) ?? s.route[0];
  return order[0] === head ? undefined : head.name;
}

function fits(c: CarrierView, parts: number): boolean {
  return c.dailyCap === undefined || c.usedToday + parts <= c.dailyCap;
}

function backlogged(c: CarrierView, policy: ChoicePolicy): boolean {
  return c.throttled && c.waiting >= policy.throttleBacklog;
}

function laterReady(list: readonly CarrierView[], from: number, s: ChoiceSnapshot): boolean {
  for (let i = from; i < list.length; i++) {
    const c = list[i];
    if (c.up && fits(c, s.parts) && !backlogged(c, s.policy)) return true;
  }
  return false;
}

// The refusals before the last one, for the error text: 'a: why; b: why'.
function before(tried: readonly TriedCarrier[], upTo: number): string {
  let text = '';
  for (let i = 0; i < upTo; i++) {
    const r = tried[i].result;
    if (r && !r.ok) text += `${text ? '; ' : ''}${tried[i].carrier}: ${r.error}`;
  }
  return text;
}

// What a carrier's refusal, with no carrier left to move to, makes of the message: failed or retried later.
function answerOutcome(
  s: ChoiceSnapshot,
  carrier: string,
  result: Extract<SubmitResult, { ok: false }>,
): CarrierDecision {
  const earlier = before(s.tried, s.tried.length - 1);
  const error = earlier ? `${result.error} (before: ${earlier})` : result.error;
  if (!result.transient)
    return {
      kind: 'fail',
      carrier,
      status: result.status ?? DELIVERY.FAILED,
      error,
      ...(result.carrierError ? { carrierError: result.carrierError } : {}),
    };
  const { retryBaseMs, retryMaxMs } = s.policy;
  // The provider asked to slow down: the message waits, and the wait is not an attempt (it never fails of it).
  if (result.throttled) return { kind: 'retry', carrier, at: s.now + retryBaseMs, error, uncounted: true };
  if (s.attempts >= s.policy.maxAttempts)
    return {
      kind: 'fail',
      carrier,
      status: DELIVERY.FAILED,
      error: `gave up after ${s.attempts} attempts: ${error}`,
    };
  const delay = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(s.attempts - 1, 20));
  return { kind: 'retry', carrier, at: s.now + delay, error };
}

// Every carrier of the route left has reached its daily cap: the message waits, and the wait is not an attempt
// unless a carrier refused it on this walk.
function cappedWait(s: ChoiceSnapshot, order: readonly CarrierView[]): CarrierDecision {
  const earlier = before(s.tried, s.tried.length);
  const refused = s.tried.some((t) => t.result !== undefined);
  const diverted = divertedFrom(s, order);
  return {
    kind: 'retry',
    carrier: null,
    at: s.now + Math.min(CAPPED_WAIT_MS, s.policy.retryMaxMs),
    error: `every carrier of its route has reached its daily cap${refused ? ` (before: ${earlier})` : ''}`,
    uncounted: !refused,
    ...(diverted === undefined ? {} : { diverted }),
  };
}
