// A service with the SMPP server for customers (plain and TLS listeners on ephemeral ports), its carrier the
// in-process SMSC simulator, and a customer account with a verified sender and an SMPP password.
import { smppServerComponent } from '../../src/smpp-server/component.ts';
import type { SmppServerOptions } from '../../src/smpp-server/server.ts';
import { startDelivery, type DeliveryHarness } from '../delivery/delivery-helpers.ts';
import type { StoreTarget } from '../helpers/stores.ts';
import type { SimulatorOptions } from '../../src/carriers/simulator/index.ts';

export interface SmppHarness extends DeliveryHarness {
  port: number;
  tlsPort: number;
  /** Creates an account with credits, the verified sender "Yona" and an SMPP password. */
  customer(username: string, password: string, o?: { credits?: number; tlsOnly?: boolean }): Promise<void>;
}

export async function startSmppHarness(
  target: StoreTarget,
  o: { server?: Partial<SmppServerOptions>; sim?: SimulatorOptions; env?: Record<string, string> } = {},
): Promise<SmppHarness> {
  const component = smppServerComponent({ pollMs: 50, ...o.server });
  const h = await startDelivery(target, {
    components: [component],
    sim: o.sim,
    env: { YONA_SMPP_PORT: '0', YONA_SMPP_TLS_PORT: '0', YONA_SMPP_HOST: '127.0.0.1', ...o.env },
  });
  const ports = component.server()!.listening;
  return {
    ...h,
    port: ports.port!,
    tlsPort: ports.tlsPort!,
    async customer(username, password, c = {}) {
      await h.t.admin('create-account', username, '--password', 'secret-pw', '--credits', String(c.credits ?? 10_000));
      await h.t.admin('verify-sender', username, 'Yona');
      await h.t.admin('smpp-password', username, password, ...(c.tlsOnly ? ['--tls-only'] : []));
    },
  };
}
