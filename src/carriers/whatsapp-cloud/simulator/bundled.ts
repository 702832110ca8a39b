// The Cloud API simulator as a protocol's bundled simulator (carriers/protocol-simulator.ts): started in-process on
// loopback with a fresh token and app secret, its statuses paced like the SMS simulator's receipts, registered
// for `yona sim --channel whatsapp` as `whatsappControlUrl`. The protocol says what carrier binds to it; the
// webhook address is the carrier's on the node's own listener when the node takes webhooks (else set on the
// running simulator: `instance.setWebhook(url)`).
import { randomBytes } from 'node:crypto';
import type { BundledSimulator, ProtocolSimulator } from '../../protocol-simulator.ts';
import type { CarrierConfigBase } from '../../types.ts';
import { waSimCommand } from './command.ts';
import { type RunningWhatsAppSimulator, startWhatsAppSimulator } from './start.ts';

/** The bundled simulator of a protocol whose carrier settings for a running simulator `carrier` makes. */
export function bundledWhatsAppSimulator(
  carrier: (sim: RunningWhatsAppSimulator) => CarrierConfigBase,
): ProtocolSimulator {
  return {
    command: waSimCommand,
    async start({ receiptDelayMs, webhooksUrl }): Promise<BundledSimulator> {
      const sim = await startWhatsAppSimulator({
        statusDelayMs: receiptDelayMs,
        token: randomBytes(16).toString('hex'),
        appSecret: randomBytes(16).toString('hex'),
      });
      const bound = carrier(sim);
      // Its webhooks go to the carrier's address on this node's own listener (the ingress knows the carrier).
      if (webhooksUrl) sim.setWebhook(`${webhooksUrl}/whatsapp/${encodeURIComponent(bound.name)}`, sim.appSecret);
      return {
        carrier: bound,
        started: {
          fields: {
            graph: sim.url,
            control: sim.controlUrl,
            webhook: webhooksUrl ? `${webhooksUrl}/whatsapp/${bound.name}` : 'none',
          },
          message:
            'no carrier configured: bundled WhatsApp Cloud API simulator started (yona sim --channel whatsapp talks to it)',
        },
        info: { graphUrl: sim.url, whatsappControlUrl: sim.controlUrl },
        instance: sim,
        stop: () => sim.close(),
      };
    },
  };
}
