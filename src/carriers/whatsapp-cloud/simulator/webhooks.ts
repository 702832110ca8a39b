// The simulator's webhooks, as Meta posts them: the envelope (object whatsapp_business_account, one entry per
// business account, one change of field "messages"), signed with X-Hub-Signature-256 (HMAC-SHA256 of the raw
// body under the app secret), and posted again with a doubling delay while the receiver does not answer 2xx.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { Agent, request } from 'undici';

/** The business number a webhook speaks for. */
export interface WebhookBusiness {
  number: string;
  phoneNumberId: string;
  wabaId: string;
}

// The app secrets as key objects (an HMAC under one costs a fifth of one under the secret's string).
const keys = new Map<string, KeyObject>();

/** The header value Meta signs a body with: `sha256=` and the hex HMAC-SHA256 of the raw body under the app secret. */
export function hubSignature(appSecret: string, body: string | Buffer): string {
  let key = keys.get(appSecret);
  if (!key) {
    if (keys.size >= 100) keys.clear();
    key = createSecretKey(Buffer.from(appSecret, 'utf8'));
    keys.set(appSecret, key);
  }
  return `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
}

/** Meta's webhook envelope around one change value (statuses[], or contacts[] and messages[]). */
export function webhookEnvelope(business: WebhookBusiness, value: Record<string, unknown>): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: business.wabaId,
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: business.number, phone_number_id: business.phoneNumberId },
              ...value,
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

/** One webhook post, as the control channel lists it. */
export interface WebhookDelivery {
  seq: number;
  url: string;
  /** `status` (with the status and message id) or `message` (an inbound message). */
  kind: 'status' | 'message';
  messageId: string;
  status?: string;
  body: string;
  attempts: number;
  /** The HTTP status of the last answer, or the error of the last attempt. */
  lastAnswer?: number | string;
  delivered: boolean;
  gaveUp: boolean;
}

/** How failed posts are retried: after `baseMs`, doubling up to `maxMs`, `attempts` posts in all. */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  attempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxMs: 60_000, attempts: 10 };

const LOG_LIMIT = 100_000;
/**
 * Connections kept open to a receiver at most (the posts beyond wait their turn): without a bound every post that
 * finds them all busy opens one more, and setting up connections cost the simulator more than its posts.
 */
const CONNECTIONS = 64;

/** Keeps a log under `limit` entries: past it, the oldest tenth goes at once (not one shift per entry). */
export function trimLog(log: unknown[], limit: number): void {
  if (log.length > limit) log.splice(0, log.length - limit + Math.ceil(limit / 10));
}

/** Posts signed webhooks, retries the failed ones, and keeps a bounded log of them. */
export class WebhookSender {
  private readonly log: WebhookDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private seq = 0;
  private closed = false;
  private readonly agent = new Agent({ connections: CONNECTIONS, keepAliveTimeout: 30_000 });

  constructor(private readonly retry: RetryPolicy) {}

  /**
   * Posts `payload` to `url` signed with `appSecret`; resolves after the first attempt (true when answered 2xx),
   * retrying in the background after that.
   */
  send(
    url: string,
    appSecret: string,
    payload: Record<string, unknown>,
    what: Pick<WebhookDelivery, 'kind' | 'messageId' | 'status'>,
  ): Promise<boolean> {
    const body = JSON.stringify(payload);
    const delivery: WebhookDelivery = {
      seq: ++this.seq,
      url,
      ...what,
      body,
      attempts: 0,
      delivered: false,
      gaveUp: false,
    };
    this.log.push(delivery);
    trimLog(this.log, LOG_LIMIT);
    return this.attempt(delivery, appSecret);
  }

  private async attempt(delivery: WebhookDelivery, appSecret: string): Promise<boolean> {
    if (this.closed) return false;
    delivery.attempts++;
    try {
      const res = await request(delivery.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'facebookexternalua',
          'x-hub-signature-256': hubSignature(appSecret, delivery.body),
        },
        body: delivery.body,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await res.body.dump();
      delivery.lastAnswer = res.statusCode;
      delivery.delivered = res.statusCode >= 200 && res.statusCode < 300;
    } catch (err) {
      delivery.lastAnswer = (err as Error).message;
    }
    if (delivery.delivered) return true;
    if (delivery.attempts >= this.retry.attempts) {
      delivery.gaveUp = true;
      return false;
    }
    const wait = Math.min(this.retry.baseMs * 2 ** (delivery.attempts - 1), this.retry.maxMs);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, appSecret);
    }, wait);
    this.timers.add(timer);
    return false;
  }

  /** The posts so far, oldest first, optionally those of one message id. */
  deliveries(messageId?: string): WebhookDelivery[] {
    return messageId ? this.log.filter((d) => d.messageId === messageId) : [...this.log];
  }

  /** Posts waiting for a retry. */
  pending(): number {
    return this.timers.size;
  }

  /** Cancels every retry still waiting. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    void this.agent.close().catch(() => undefined);
  }
}
