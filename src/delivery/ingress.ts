// Carriers' webhooks on an API node: a request to /webhooks/<protocol>/<carrier>[/<path>] goes to the route its
// protocol declared (carriers/ingress.ts) with the carrier's settings; the events a route reads are stored before
// the answer (the receipts role processes them, ingress-events.ts). An unknown carrier, a protocol without
// webhooks or a route it does not declare is a 404; a refusal by the route (a bad signature) stores nothing.
import { createHash } from 'node:crypto';
import { protocolName, protocols } from '../carriers/index.ts';
import { INGRESS_BODY_LIMIT, type IngressEvent, type ProtocolIngress } from '../carriers/ingress.ts';
import type { CarrierConfigBase } from '../carriers/types.ts';
import type { Component, ComponentHost, WebhookAnswer, WebhookIngress, WebhookRequest } from '../component.ts';
import { sealingKey } from '../secret-key.ts';
import { insertIngressEvents, type NewIngressEvent } from '../store/ingress.ts';
import { loadCarrierSetup, type CarrierSetup } from './carrier-setup.ts';
import { IngressBatchWriter } from './ingress-batch.ts';

/** Options of the webhooks component (tests pass their own carriers). */
export interface IngressOptions {
  /** Carriers to take webhooks for instead of YONA_CARRIERS_FILE and the store. */
  setup?: CarrierSetup;
  /** The carriers of the bundled simulators this process runs now (their webhooks come to this node). */
  bundled?: () => readonly CarrierConfigBase[];
}

/** Carriers added or changed are seen by webhooks within this. */
const SETTINGS_TTL_MS = 1000;
const NOT_FOUND: WebhookAnswer = { status: 404, body: '{"error":"Not Found"}', contentType: 'application/json' };

/** What makes an event one: the carrier's key, else a digest of its content. */
function eventKey(event: IngressEvent): string {
  if (event.key) return `k:${event.key}`;
  const content = event.kind === 'receipt' ? event.receipt : event.sms;
  return `d:${createHash('sha256').update(JSON.stringify(content)).digest('base64url')}`;
}

/** The events of an answer as rows to store. */
function toRows(protocol: string, carrier: string, events: IngressEvent[]): NewIngressEvent[] {
  return events.map((e) => ({
    protocol,
    carrier,
    kind: e.kind,
    key: eventKey(e),
    event: JSON.stringify(e.kind === 'receipt' ? e.receipt : e.sms),
  }));
}

/** The component that takes carriers' webhooks on an API node (its `webhooks` is the port the HTTP edge uses). */
export function ingressComponent(options: IngressOptions = {}): Component {
  let host: ComponentHost | undefined;
  let cached: { at: number; carriers: Promise<Map<string, CarrierConfigBase>> } | undefined;
  // The events of concurrent webhooks share a transaction (ingress-batch.ts).
  const writer = new IngressBatchWriter(async (rows) => {
    const service = host;
    if (!service) throw new Error('the webhooks component is stopped');
    const stored = await service.store.db
      .transaction()
      .execute((trx) => insertIngressEvents(trx, rows, service.clock()));
    if (stored > 0) service.signals.notify('ingress');
  });

  // The carriers' settings, read again at most every SETTINGS_TTL_MS.
  function carriers(service: ComponentHost): Promise<Map<string, CarrierConfigBase>> {
    const now = service.clock();
    if (!cached || now - cached.at > SETTINGS_TTL_MS) {
      const setup = options.setup
        ? Promise.resolve(options.setup)
        : loadCarrierSetup(service.store.db, service.config.carriersFile, () => sealingKey(service.config));
      const loading = setup.then((s) => new Map(s.carriers.map((c) => [c.name, c])));
      loading.catch(() => (cached = undefined));
      cached = { at: now, carriers: loading };
    }
    return cached.carriers;
  }

  // The protocol whose webhooks answer at /webhooks/<webhook>/... (its ingress name, else its own name).
  const ingressOf = (webhook: string): { protocol: string; ingress: ProtocolIngress } | undefined => {
    const found = protocols().find(([name, p]) => p.ingress && (p.ingress.name ?? name) === webhook);
    return found && { protocol: found[0], ingress: found[1].ingress! };
  };

  const webhooks: WebhookIngress = {
    maxBodyBytes: Math.max(
      INGRESS_BODY_LIMIT,
      ...protocols().map(([, p]) => p.ingress?.maxBodyBytes ?? INGRESS_BODY_LIMIT),
    ),
    async receive(request: WebhookRequest): Promise<WebhookAnswer> {
      const service = host;
      if (!service) return { status: 503, body: 'starting' };
      const found = ingressOf(request.protocol);
      if (!found) return NOT_FOUND;
      const { protocol, ingress } = found;
      const settings =
        (await carriers(service)).get(request.carrier) ?? options.bundled?.().find((c) => c.name === request.carrier);
      if (!settings || protocolName(settings.protocol) !== protocol) return NOT_FOUND;
      const route = ingress.routes.find((r) => r.method === request.method && r.path === request.path);
      if (!route) return NOT_FOUND;
      if (request.body.length > (ingress.maxBodyBytes ?? INGRESS_BODY_LIMIT))
        return { status: 413, body: 'body too large' };
      const answer = await route.handle({ ...request, settings });
      if (answer.status === 401 || answer.status === 403)
        service.logger.warn(
          { protocol, carrier: request.carrier, method: request.method, status: answer.status, reason: answer.body },
          'webhook refused (nothing stored)',
        );
      const events = answer.status >= 200 && answer.status < 300 ? (answer.events ?? []) : [];
      if (events.length > 0) await writer.store(toRows(protocol, request.carrier, events));
      return { status: answer.status, body: answer.body, contentType: answer.contentType };
    },
  };

  return {
    name: 'webhooks',
    webhooks,
    async start(service) {
      host = service;
    },
    async stop() {
      host = undefined;
      cached = undefined;
    },
  };
}
