// Operator alerts: the kinds of threshold an operator sets, what each observes and when it crosses. Pure: the
// evaluator (delivery/alerts.ts) gathers the figures from the store and the nodes' carrier health, this decides
// which subjects are past their threshold. A "minute" is YONA_ALERT_MINUTE_MS (60,000 unless set).

export const ALERT_KINDS = ['delivery-rate', 'carrier-down', 'queue-age', 'push-disabled'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export function isAlertKind(text: string): text is AlertKind {
  return (ALERT_KINDS as readonly string[]).includes(text);
}

/** A threshold the operator set. */
export interface AlertRule {
  kind: AlertKind;
  /** delivery-rate only: raise below this rate (percent, 0-100). */
  percent: number | null;
  /** delivery-rate: the window; carrier-down: how long down; queue-age: the oldest due message's age; push-disabled: unused (0). */
  minutes: number;
}

/** The longest window or duration a rule may name, in minutes (a week). */
export const MAX_ALERT_MINUTES = 10_080;

/** What one evaluation observed of one subject under one rule. */
export interface AlertObservation {
  kind: AlertKind;
  /** The carrier's name, `queue`, or `USERNAME TYPE` of a push URL. */
  subject: string;
  /** The figure compared: a delivery rate (percent), minutes down, the oldest message's age in minutes, 1 for a disabled URL. */
  value: number;
  threshold: number;
  crossed: boolean;
}

/** A carrier's outcomes over a rule's window. */
export interface CarrierOutcomes {
  carrier: string;
  delivered: number;
  /** Final outcomes, delivered or not. */
  final: number;
}

/** A carrier as the live nodes report it: up on one of them, or down on all since `downSince`. */
export interface CarrierState {
  carrier: string;
  up: boolean;
  downSince?: number;
}

/** The figures an evaluation works from. */
export interface AlertFigures {
  now: number;
  minuteMs: number;
  /** Outcomes per carrier over the delivery-rate rule's window. */
  outcomes: CarrierOutcomes[];
  carriers: CarrierState[];
  /** When the message due longest became due (none when nothing is due). */
  oldestDueAt?: number;
  /** Disabled push URLs, as `USERNAME TYPE`. */
  disabledPush: string[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Every observation of every rule. A subject without an observation is not known to be in trouble. */
export function observe(rules: AlertRule[], f: AlertFigures): AlertObservation[] {
  const out: AlertObservation[] = [];
  for (const rule of rules) {
    switch (rule.kind) {
      case 'delivery-rate': {
        const threshold = rule.percent ?? 0;
        for (const o of f.outcomes) {
          if (o.final === 0) continue;
          const value = round1((o.delivered / o.final) * 100);
          out.push({ kind: rule.kind, subject: o.carrier, value, threshold, crossed: value < threshold });
        }
        break;
      }
      case 'carrier-down':
        for (const c of f.carriers) {
          const minutes = c.up || c.downSince === undefined ? 0 : round1((f.now - c.downSince) / f.minuteMs);
          const crossed = !c.up && c.downSince !== undefined && f.now - c.downSince >= rule.minutes * f.minuteMs;
          out.push({ kind: rule.kind, subject: c.carrier, value: minutes, threshold: rule.minutes, crossed });
        }
        break;
      case 'queue-age': {
        const age = f.oldestDueAt === undefined ? 0 : Math.max(0, f.now - f.oldestDueAt);
        out.push({
          kind: rule.kind,
          subject: 'queue',
          value: round1(age / f.minuteMs),
          threshold: rule.minutes,
          crossed: f.oldestDueAt !== undefined && age > rule.minutes * f.minuteMs,
        });
        break;
      }
      case 'push-disabled':
        for (const subject of f.disabledPush)
          out.push({ kind: rule.kind, subject, value: 1, threshold: 0, crossed: true });
        break;
    }
  }
  return out;
}

/** An alert open in the store. */
export interface OpenAlert {
  id: number;
  kind: string;
  subject: string;
}

/** What to raise and what to clear, given the open alerts: a delivery rate without outcomes keeps its alert (no news), any other open alert not observed crossing clears. */
export function alertChanges(
  rules: AlertRule[],
  observations: AlertObservation[],
  open: OpenAlert[],
): { raise: AlertObservation[]; clear: Array<{ alert: OpenAlert; value: number | null }> } {
  const key = (kind: string, subject: string) => `${kind}\u0000${subject}`;
  const openByKey = new Map(open.map((a) => [key(a.kind, a.subject), a]));
  const seen = new Map(observations.map((o) => [key(o.kind, o.subject), o]));
  const ruled = new Set(rules.map((r) => r.kind));
  const raise = observations.filter((o) => o.crossed && !openByKey.has(key(o.kind, o.subject)));
  const clear: Array<{ alert: OpenAlert; value: number | null }> = [];
  for (const a of open) {
    const o = seen.get(key(a.kind, a.subject));
    if (o?.crossed) continue;
    if (!o && a.kind === 'delivery-rate' && ruled.has('delivery-rate')) continue;
    clear.push({ alert: a, value: o ? o.value : null });
  }
  return { raise, clear };
}

/** An alert as it is shown outside: the operator's webhook and `yona admin alerts --json`. */
export interface AlertShown {
  id: number;
  kind: string;
  subject: string;
  value: number | null;
  threshold: number;
  raisedAt: number;
}

/** An alert's fields as posted and listed. */
export function alertFields(a: AlertShown) {
  return {
    id: a.id,
    kind: a.kind,
    subject: a.subject,
    value: a.value,
    threshold: a.threshold,
    raised_at: new Date(a.raisedAt).toISOString(),
  };
}

/** The body posted to the operator's webhook for a raise or a clear (docs/operator-console.md "Alerts"). */
export function alertPostBody(event: 'alert.raised' | 'alert.cleared', a: AlertShown, at: number): string {
  return JSON.stringify({ event, ...alertFields(a), at: new Date(at).toISOString() });
}
