// A WhatsApp carrier's webhook, /webhooks/whatsapp/CARRIER: Meta's check of the address (GET with hub.mode,
// hub.verify_token and hub.challenge: the challenge echoed when the token is the carrier's, else 403), and its
// events (POST, signed: X-Hub-Signature-256 is sha256=<hex HMAC-SHA256 of the raw body under the app secret>; a
// bad or missing signature is 401 and nothing is kept). Message statuses become receipts keyed by message id and
// status (a repeat is one event); users' messages become inbound messages keyed by their id, the user known by
// phone or, when Meta gives none, by their business-scoped user id.
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { IngressAnswer, IngressEvent, IngressRequest, ProtocolIngress } from '../ingress.ts';
import { DELIVERY } from '../../domain/status.ts';
import { statusOfWebhook, THROTTLING_CODES } from './codes.ts';

/** The first word of the webhook's address (/webhooks/whatsapp/CARRIER). */
export const WEBHOOK_NAME = 'whatsapp';

// The app secrets as key objects: an HMAC under a key object costs a fifth of one under the secret's string.
const keys = new Map<string, KeyObject>();
function keyOf(appSecret: string): KeyObject {
  let key = keys.get(appSecret);
  if (!key) {
    if (keys.size >= 100) keys.clear();
    key = createSecretKey(Buffer.from(appSecret, 'utf8'));
    keys.set(appSecret, key);
  }
  return key;
}

/** The signature header Meta sends with a body. */
export function signWebhook(appSecret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', keyOf(appSecret)).update(body).digest('hex')}`;
}

function signed(req: IngressRequest): boolean {
  const given = Buffer.from(req.headers['x-hub-signature-256'] ?? '');
  const wanted = Buffer.from(signWebhook(String(req.settings.appSecret), req.body));
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function verify(req: IngressRequest): IngressAnswer {
  const token = String(req.settings.verifyToken ?? '');
  const given = Buffer.from(req.query['hub.verify_token'] ?? '');
  const ok =
    req.query['hub.mode'] === 'subscribe' &&
    given.length === Buffer.byteLength(token) &&
    timingSafeEqual(given, Buffer.from(token));
  if (!ok) return { status: 403, body: 'verification refused', contentType: 'text/plain' };
  return { status: 200, body: req.query['hub.challenge'] ?? '', contentType: 'text/plain' };
}

const seconds = (t: unknown): number => (Number(t) > 0 ? Number(t) * 1000 : Date.now());
const digits = (s: unknown): string => String(s ?? '').replace(/\D/g, '');

/** What a user's message says, as text: its text, a button's or a reply's title, else its kind in brackets. */
function textOf(m: any): string {
  if (typeof m.text?.body === 'string') return m.text.body;
  if (typeof m.button?.text === 'string') return m.button.text;
  const reply = m.interactive?.button_reply ?? m.interactive?.list_reply;
  if (typeof reply?.title === 'string') return reply.title;
  const caption = m[m.type]?.caption;
  return typeof caption === 'string' ? `[${m.type}] ${caption}` : `[${String(m.type ?? 'message')}]`;
}

/** The events of one webhook document (Meta's `whatsapp_business_account` object). */
export function eventsOf(document: any, businessNumber: string): IngressEvent[] {
  const events: IngressEvent[] = [];
  for (const entry of Array.isArray(document?.entry) ? document.entry : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      if (change?.field !== 'messages') continue;
      const value = change.value ?? {};
      const to = digits(value.metadata?.display_phone_number) || businessNumber;
      for (const s of Array.isArray(value.statuses) ? value.statuses : []) {
        const error = Array.isArray(s.errors) ? s.errors[0] : undefined;
        const code = error?.code === undefined ? undefined : Number(error.code);
        const status = statusOfWebhook(String(s.status), code);
        if (status === undefined || typeof s.id !== 'string') continue;
        // A failure of throttling is no failure: the message is sent again later.
        if (s.status === 'failed' && code !== undefined && THROTTLING_CODES.has(code)) {
          events.push({
            kind: 'receipt',
            key: `${s.id}:${s.status}`,
            receipt: {
              carrierMessageId: s.id,
              status: DELIVERY.SUBMITTED,
              carrierError: String(code),
              sendAgain: true,
            },
          });
          continue;
        }
        events.push({
          kind: 'receipt',
          key: `${s.id}:${s.status}`,
          receipt: { carrierMessageId: s.id, status, ...(code !== undefined ? { carrierError: String(code) } : {}) },
        });
      }
      const contacts: any[] = Array.isArray(value.contacts) ? value.contacts : [];
      for (const m of Array.isArray(value.messages) ? value.messages : []) {
        if (typeof m?.id !== 'string') continue;
        const contact = contacts.find((c) => (c.wa_id && c.wa_id === m.from) || (c.user_id && c.user_id === m.user_id));
        const from = digits(m.from) || String(m.user_id ?? contact?.user_id ?? '');
        if (!from) continue;
        const name = contact?.profile?.name;
        events.push({
          kind: 'inbound',
          key: m.id,
          sms: {
            from,
            to,
            text: textOf(m),
            at: seconds(m.timestamp),
            channel: 'whatsapp',
            carrierMessageId: m.id,
            ...(typeof name === 'string' ? { name } : {}),
          },
        });
      }
    }
  }
  return events;
}

function receive(req: IngressRequest): IngressAnswer {
  if (!signed(req)) return { status: 401, body: 'bad signature', contentType: 'text/plain' };
  let document: unknown;
  try {
    document = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { status: 400, body: 'not a JSON document', contentType: 'text/plain' };
  }
  return {
    status: 200,
    body: 'EVENT_RECEIVED',
    contentType: 'text/plain',
    events: eventsOf(document, String(req.settings.businessNumber ?? '')),
  };
}

/** The webhook routes every API node mounts for a WhatsApp carrier. */
export const whatsappIngress: ProtocolIngress = {
  name: WEBHOOK_NAME,
  maxBodyBytes: 1024 * 1024,
  routes: [
    { method: 'GET', path: '', handle: verify },
    { method: 'POST', path: '', handle: receive },
  ],
};
