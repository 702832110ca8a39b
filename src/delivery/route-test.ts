// The route test of `yona admin route-test` and of the form on /admin/routes (through AppContext.routeTest): the
// carriers configured now (the store's and the carriers file's) and the dispatcher's own routers answer which
// route and carriers a message would take. A dry run: nothing is sent or written.
import type { Config } from '../config.ts';
import { channelNames, DEFAULT_CHANNEL, isChannel } from '../domain/channels.ts';
import { normalizePhone } from '../domain/phone.ts';
import type { RouteTestAnswer, RouteTestQuestion } from '../domain/route-test.ts';
import { sealingKey } from '../secret-key.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import { accountRouteNames } from '../store/carriers.ts';
import type { Queryable } from '../store/engine/db.ts';
import { simulatorsServe } from './bundled-simulators.ts';
import { routersOf } from './carrier-set.ts';
import { loadCarrierSetup } from './carrier-setup.ts';

/** Which route and carriers a message to `q.to` would take; a problem with the question is an answer too. */
export async function testRoute(db: Queryable, config: Config, q: RouteTestQuestion): Promise<RouteTestAnswer> {
  const phone = normalizePhone(q.to.trim(), { allowInternational: true });
  if (!phone.ok)
    return { kind: 'problem', problem: `--to must be a phone number, got "${q.to}"`, reason: 'phone', value: q.to };
  const channel = q.channel ? q.channel : DEFAULT_CHANNEL;
  if (!isChannel(channel))
    return {
      kind: 'problem',
      problem: `--channel must be ${channelNames().join(' or ')}, got "${channel}"`,
      reason: 'channel',
      value: channel,
    };
  const account = q.account?.trim() || undefined;
  const source = q.source?.trim() || undefined;
  let reseller: string | null = null;
  if (account) {
    const found = await findAccountByUsername(db, account);
    if (!found) return { kind: 'problem', problem: `no account named "${account}"`, reason: 'account', value: account };
    reseller = (await accountRouteNames(db, found.id))?.reseller ?? null;
  }
  const setup = await loadCarrierSetup(db, config.carriersFile, () => sealingKey(config));
  // Each channel is routed apart, as the dispatcher does: a call is tried on voice trunks only.
  const router = routersOf(setup).get(channel);
  if (!router)
    return { kind: 'problem', problem: `no router for channel "${channel}"`, reason: 'router', value: channel };
  const target = { phone: phone.e164, source, account, reseller, channel } as const;
  const carriers = router.candidates({ ...target, key: 0 });
  const where = { phone: phone.e164, channel };
  if (carriers.length === 0) {
    if (simulatorsServe(setup, config.delivery.simulators)) return { kind: 'simulator', ...where };
    return { kind: setup.carriers.length === 0 ? 'refused-no-carrier' : 'refused-no-channel-carrier', ...where };
  }
  const route = router.route(target);
  return { kind: 'carriers', ...where, carriers, ...(route ? { route } : {}) };
}
