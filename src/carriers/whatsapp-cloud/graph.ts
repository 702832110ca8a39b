// Meta's Graph API as a WhatsApp carrier speaks it: the send of one message (text, or an approved template with
// its body parameters) to {graphUrl}/{version}/{phoneNumberId}/messages with the bearer token, and its answer read
// as an id or an error with Meta's code.
import { Agent, request } from 'undici';
import type { OutboundMessage } from '../types.ts';
import type { WhatsappCarrierConfig } from './settings.ts';

/** What the Graph API answered a send. */
export type GraphAnswer =
  | { ok: true; id: string }
  | { ok: false; http: number; code: number; error: string }
  | { ok: false; http: 0; code: 0; error: string; unanswered: true };

/** The body of a send: a template when the message carries one, else its text. */
export function messageBody(message: OutboundMessage): Record<string, unknown> {
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: message.destination };
  const t = message.template;
  if (!t) return { ...base, type: 'text', text: { preview_url: false, body: message.text } };
  const components =
    t.parameters.length === 0
      ? []
      : [{ type: 'body', parameters: t.parameters.map((text) => ({ type: 'text', text })) }];
  return { ...base, type: 'template', template: { name: t.name, language: { code: t.language }, components } };
}

/** A business number's connection to the Graph API (kept-alive connections). */
export class GraphClient {
  private readonly agent: Agent;

  constructor(private readonly config: WhatsappCarrierConfig) {
    this.agent = new Agent({ connections: Math.min(config.inFlight, 128), keepAliveTimeout: 30_000 });
  }

  /** The send path: the carrier's phone number id, or (a carrier of any business number) the source's digits. */
  private url(message: OutboundMessage): string {
    const id = this.config.anyBusinessNumber ? message.source : this.config.phoneNumberId;
    return `${this.config.graphUrl}/${this.config.graphVersion}/${encodeURIComponent(id)}/messages`;
  }

  /** Sends one message; never throws. */
  async send(message: OutboundMessage): Promise<GraphAnswer> {
    let status: number;
    let text: string;
    try {
      const res = await request(this.url(message), {
        method: 'POST',
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${this.config.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(messageBody(message)),
        headersTimeout: this.config.requestTimeoutMs,
        bodyTimeout: this.config.requestTimeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      return {
        ok: false,
        http: 0,
        code: 0,
        error: `Graph API unanswered: ${(err as Error).message}`,
        unanswered: true,
      };
    }
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const id = body?.messages?.[0]?.id;
    if (status >= 200 && status < 300 && typeof id === 'string') return { ok: true, id };
    const e = body?.error;
    const code = Number(e?.code ?? 0) || 0;
    const detail = e?.error_data?.details ?? e?.message ?? text.slice(0, 200);
    return { ok: false, http: status, code, error: `Graph API ${status}${code ? ` (${code})` : ''}: ${detail}` };
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}
