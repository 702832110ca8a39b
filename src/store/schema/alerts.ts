// Operator alerts (migration 0054).
import type { Generated } from 'kysely';

/** A threshold the operator set for one kind of alert (domain/alerts.ts). */
export interface AlertRuleTable {
  kind: string;
  /** delivery-rate: the rate (percent) below which it raises; null for the other kinds. */
  percent: number | null;
  /** How long the condition must last (the delivery rate's window, a carrier down, the oldest message's age). */
  minutes: number;
  updated_at: number;
}

/** The operator's webhook: the single row id 1. */
export interface AlertWebhookTable {
  id: number;
  url: string;
  /** The signing secret, sealed at rest. */
  secret: string;
  updated_at: number;
}

/** An alert raised for a subject (a carrier, the queue, an account's push URL); open while cleared_at is null. */
export interface AlertTable {
  id: Generated<number>;
  kind: string;
  subject: string;
  value: number;
  threshold: number;
  raised_at: number;
  cleared_at: number | null;
  cleared_value: number | null;
}

/** A raise or clear to post to the operator's webhook. */
export interface AlertPostTable {
  id: Generated<number>;
  alert_id: number;
  /** 'alert.raised' or 'alert.cleared'. */
  event: string;
  body: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  sent_at: number | null;
  last_error: string | null;
}

export interface AlertTables {
  alert_rules: AlertRuleTable;
  alert_webhook: AlertWebhookTable;
  alerts: AlertTable;
  alert_posts: AlertPostTable;
}
