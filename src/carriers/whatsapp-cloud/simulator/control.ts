// The Cloud API simulator's control channel on 127.0.0.1 (JSON in and out), where `yona sim ... --channel
// whatsapp` and tests drive it: GET /messages?to= (what each user got), GET /webhooks?id= (every post with its
// attempts), GET /templates, GET /stats; POST /mo {from,to,text,name?,bsuidOnly?} (a user writes to a business),
// POST /templates {name,language,category,status,body,header?,footer?}, POST /businesses {number,phoneNumberId,
// wabaId?,webhookUrl?,appSecret?}, POST /webhook {url,appSecret?}, POST /status-delay {ms}.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readJson, send } from '../../simulator/control.ts';
import type { InboundAnswer, SentWhatsAppMessage, WhatsAppSimulator } from './simulator.ts';
import type { SimulatedTemplate, TemplateCategory, TemplateStatus } from './templates.ts';
import type { WebhookDelivery } from './webhooks.ts';

const STATUSES: readonly TemplateStatus[] = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'];
const CATEGORIES: readonly TemplateCategory[] = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];

/** Starts the control channel on 127.0.0.1:`port` (0: any free port). */
export async function startWhatsAppControl(sim: WhatsAppSimulator, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    route(sim, req, res).catch((err: Error) => send(res, 500, { error: err.message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

const text = (v: unknown): v is string => typeof v === 'string' && v !== '';

async function route(sim: WhatsAppSimulator, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const query = (name: string) => url.searchParams.get(name) ?? undefined;
  const key = `${req.method} ${url.pathname}`;
  if (key === 'GET /messages') return send(res, 200, { messages: sim.messages(query('to')) });
  if (key === 'GET /webhooks') return send(res, 200, { webhooks: sim.webhooks.deliveries(query('id')) });
  if (key === 'GET /templates') return send(res, 200, { templates: sim.templates.list() });
  if (key === 'GET /stats') return send(res, 200, sim.stats());
  if (req.method !== 'POST') return send(res, 404, { error: 'not found' });
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch (err) {
    return send(res, 400, { error: (err as Error).message });
  }
  switch (url.pathname) {
    case '/mo': {
      const { from, to, text: message, name, bsuidOnly } = body;
      if (!text(from) || !text(to) || typeof message !== 'string')
        return send(res, 400, { error: 'from, to and text are required strings' });
      return send(
        res,
        200,
        await sim.inbound({
          from,
          to,
          text: message,
          name: typeof name === 'string' ? name : undefined,
          bsuidOnly: bsuidOnly === true,
        }),
      );
    }
    case '/templates': {
      const { name, language, category, status, body: templateBody, header, footer } = body;
      if (!text(name) || !text(language) || !text(templateBody))
        return send(res, 400, { error: 'name, language and body are required strings' });
      if (!CATEGORIES.includes(category as TemplateCategory))
        return send(res, 400, { error: `category must be one of ${CATEGORIES.join(', ')}` });
      if (!STATUSES.includes(status as TemplateStatus))
        return send(res, 400, { error: `status must be one of ${STATUSES.join(', ')}` });
      const template = sim.templates.put({
        name,
        language,
        category: category as TemplateCategory,
        status: status as TemplateStatus,
        body: templateBody,
        ...(text(header) ? { header } : {}),
        ...(text(footer) ? { footer } : {}),
      });
      return send(res, 200, { template });
    }
    case '/businesses': {
      const { number, phoneNumberId, wabaId, webhookUrl, appSecret } = body;
      if (!text(number) || !text(phoneNumberId))
        return send(res, 400, { error: 'number and phoneNumberId are required strings' });
      sim.addBusiness({
        number: number.replace(/\D/g, ''),
        phoneNumberId,
        ...(text(wabaId) ? { wabaId } : {}),
        ...(text(webhookUrl) ? { webhookUrl } : {}),
        ...(text(appSecret) ? { appSecret } : {}),
      });
      return send(res, 200, { ok: true });
    }
    case '/webhook':
      if (body.url !== undefined && !text(body.url)) return send(res, 400, { error: 'url must be a string' });
      sim.setWebhook(body.url as string | undefined, text(body.appSecret) ? body.appSecret : undefined);
      return send(res, 200, { ok: true });
    case '/status-delay': {
      const ms = Number(body.ms);
      if (!Number.isInteger(ms) || ms < 0) return send(res, 400, { error: 'ms must be a whole number' });
      sim.setStatusDelay(ms);
      return send(res, 200, { ok: true });
    }
    default:
      return send(res, 404, { error: 'not found' });
  }
}

/** Client of the control channel, for the CLI and tests: `new WhatsAppSimulatorClient('http://127.0.0.1:PORT')`. */
export class WhatsAppSimulatorClient {
  constructor(private readonly baseUrl: string) {}

  /** A user writes `text` to the business number `to`. */
  mo(input: { from: string; to: string; text: string; name?: string; bsuidOnly?: boolean }): Promise<InboundAnswer> {
    return this.call('POST', '/mo', input) as Promise<InboundAnswer>;
  }

  /** The messages users got, optionally one user's (phone number or BSUID). */
  async messages(to?: string): Promise<SentWhatsAppMessage[]> {
    const query = to ? `?to=${encodeURIComponent(to)}` : '';
    return ((await this.call('GET', `/messages${query}`)) as { messages: SentWhatsAppMessage[] }).messages;
  }

  /** The webhook posts, optionally those of one message id. */
  async webhooks(id?: string): Promise<WebhookDelivery[]> {
    const query = id ? `?id=${encodeURIComponent(id)}` : '';
    return ((await this.call('GET', `/webhooks${query}`)) as { webhooks: WebhookDelivery[] }).webhooks;
  }

  async templates(): Promise<SimulatedTemplate[]> {
    return ((await this.call('GET', '/templates')) as { templates: SimulatedTemplate[] }).templates;
  }

  /** POSTs to any control endpoint. */
  post(path: string, body: Record<string, unknown>): Promise<unknown> {
    return this.call('POST', path, body);
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { error?: string };
    if (!res.ok)
      throw new Error(`whatsapp simulator control ${method} ${path}: ${res.status} ${json.error ?? ''}`.trim());
    return json;
  }
}
