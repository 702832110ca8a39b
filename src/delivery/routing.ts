// Where each destination goes (longest matching route prefix) and the one form inbound numbers are kept in.
import type { ChannelName } from '../domain/channels.ts';
import { ConfigError } from '../domain/errors.ts';
import { weightedFirst } from './carrier-choice.ts';

/**
 * One route: destinations (international digits) starting with `prefix` ('' matches all) go to the carriers of
 * `carrier`, a list in failover order with optional weights ('a', 'a,b', 'a:3,b:1'). `account`, `source` and
 * `channel`, when set, narrow it to one account (or a reseller's sub-accounts), one sender, one channel.
 */
export interface Route {
  prefix: string;
  carrier: string;
  account?: string;
  source?: string;
  channel?: ChannelName;
}

/** What a route is chosen by: one message's destination, sender, account (and its reseller) and channel. */
export interface RouteTarget {
  phone: string;
  source?: string;
  account?: string;
  reseller?: string | null;
  channel?: ChannelName;
  /** Spreads a weighted route: the same key always picks the same first carrier (the message id). */
  key?: number;
}

/** One carrier of a route's list. */
export interface RouteCarrier {
  name: string;
  /** Its share of the route's traffic; undefined: taken only when the carriers before it cannot. */
  weight?: number;
}

/** A route's carrier list ('a,b:3') read; throws ConfigError naming what is wrong. */
export function carrierList(spec: string): RouteCarrier[] {
  const entries = spec.split(',').map((part) => part.trim());
  return entries.map((entry) => {
    const m = /^([\w.-]{1,40})(?::(\d{1,6}))?$/.exec(entry);
    if (!m) throw new ConfigError(`carrier list "${spec}": "${entry}" is not NAME or NAME:WEIGHT`);
    return m[2] === undefined ? { name: m[1] } : { name: m[1], weight: Number(m[2]) };
  });
}

/** A route prefix as stored: 'default' and '*' mean '' (every destination); a leading '+' is dropped. */
export function routePrefix(prefix: string): string {
  const p = prefix.trim();
  if (p === 'default' || p === '*') return '';
  return p.replace(/^\+/, '');
}

export { normalizeNumber } from '../domain/inbound-number.ts';

/**
 * Picks the carriers of a message, in the order they are tried. The route is the most specific that matches:
 * first by account (the account itself, then its reseller, then any), then by sender (named, then any), then the
 * longest destination prefix, then by channel (named, then any). No route: the first carrier configured.
 */
export class Router {
  private readonly routes: Array<Route & { carriers: RouteCarrier[] }>;
  private readonly fallback: string | undefined;
  private readonly fallbackCarriers: readonly RouteCarrier[];

  constructor(routes: Route[], carrierNames: string[]) {
    const known = new Set(carrierNames);
    this.routes = routes.map((r) => {
      const carriers = carrierList(r.carrier);
      for (const c of carriers) {
        if (!known.has(c.name))
          throw new ConfigError(`route "${r.prefix || 'default'}" names carrier "${c.name}", which is not configured`);
      }
      return { ...r, carriers };
    });
    this.fallback = carrierNames[0];
    this.fallbackCarriers = this.fallback === undefined ? [] : [{ name: this.fallback }];
    this.filtersByAccount = routes.some((r) => r.account);
  }

  /** Whether some route filters by account (the dispatcher then looks the sender's account up). */
  readonly filtersByAccount: boolean;

  /** The first carrier for a destination (international digits); undefined only when no carrier exists. */
  pick(destination: string): string | undefined {
    return this.candidates({ phone: destination })[0];
  }

  /** The route a message takes, if any matches. */
  route(target: RouteTarget): Route | undefined {
    let best: (typeof this.routes)[number] | undefined;
    let bestScore: number[] = [];
    for (const r of this.routes) {
      const score = matchScore(r, target);
      if (score && (best === undefined || compareScores(score, bestScore) > 0)) {
        best = r;
        bestScore = score;
      }
    }
    return best;
  }

  /** The carriers a message is tried on, in order (a weighted route starts with the carrier its key falls on). */
  candidates(target: RouteTarget): string[] {
    const carriers = this.carriersOf(target);
    const first = weightedFirst(carriers, target.key);
    const names = carriers.map((c) => c.name);
    return first === undefined ? names : [first.name, ...names.filter((n) => n !== first.name)];
  }

  /** The carriers of the route a message takes, in the route's order with their weights (no route: the fallback). */
  carriersOf(target: RouteTarget): readonly RouteCarrier[] {
    const route = this.route(target) as (typeof this.routes)[number] | undefined;
    if (route) return route.carriers;
    return this.fallbackCarriers;
  }
}

// How specifically a route matches a message (compared left to right), or undefined when it does not.
function matchScore(r: Route, t: RouteTarget): number[] | undefined {
  if (!t.phone.startsWith(r.prefix)) return undefined;
  let account = 0;
  if (r.account) {
    if (r.account === t.account) account = 2;
    else if (t.reseller && r.account === t.reseller) account = 1;
    else return undefined;
  }
  if (r.source && r.source !== t.source) return undefined;
  if (r.channel && r.channel !== (t.channel ?? 'sms')) return undefined;
  return [account, r.source ? 1 : 0, r.prefix.length, r.channel ? 1 : 0];
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
