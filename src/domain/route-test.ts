// A route test's question and answer (`yona admin route-test` and the form on /admin/routes): which route and
// carriers, in the order tried, a message to a destination from a sender and account would take. Nothing is sent.
// The answer is worked out by delivery/route-test.ts from the same setup and routers the dispatcher uses.

/** What a route test asks, as typed (checked by the test itself). */
export interface RouteTestQuestion {
  to: string;
  account?: string;
  source?: string;
  /** A channel name (sms, voice, ...); empty or undefined: the default channel. */
  channel?: string;
}

/** A matched route, as the answer shows it. */
export interface RouteTestRoute {
  prefix: string;
  carrier: string;
  account?: string;
  source?: string;
  channel?: string;
}

/** What was wrong with a question: the destination, the channel, the account, or a channel with no router. */
export type RouteTestProblem = 'phone' | 'channel' | 'account' | 'router';

/** The answer: refused input, or where such a message goes. */
export type RouteTestAnswer =
  /** `problem` in the CLI's words; `reason` and `value` for a console to word in its language. */
  | { kind: 'problem'; problem: string; reason?: RouteTestProblem; value?: string }
  | {
      kind: 'carriers';
      /** The destination in international digits. */
      phone: string;
      channel: string;
      /** The route that matched; undefined: none did (the first carrier configured takes it). */
      route?: RouteTestRoute;
      /** The carriers in the order tried. */
      carriers: string[];
    }
  | { kind: 'simulator' | 'refused-no-carrier' | 'refused-no-channel-carrier'; phone: string; channel: string };

/** A route in words: "destinations starting 97250 (account alice, sender Shop)" or "default route". */
export function describeRoute(r: { prefix: string; account?: string; source?: string; channel?: string }): string {
  const filters = [
    r.account ? `account ${r.account}` : '',
    r.source ? `sender ${r.source}` : '',
    r.channel ? `${r.channel} only` : '',
  ].filter(Boolean);
  const where = r.prefix === '' ? 'default route' : `destinations starting ${r.prefix}`;
  return filters.length ? `${where} (${filters.join(', ')})` : where;
}
