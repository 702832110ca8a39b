// Where each destination goes (longest matching route prefix) and the one form inbound numbers are kept in.
import { ConfigError } from '../domain/errors.ts';
import { normalizePhone } from '../domain/phone.ts';

/** One route: destinations (international digits) starting with `prefix` go to `carrier`; '' matches all. */
export interface Route {
  prefix: string;
  carrier: string;
}

/** A route prefix as stored: 'default' and '*' mean '' (every destination); a leading '+' is dropped. */
export function routePrefix(prefix: string): string {
  const p = prefix.trim();
  if (p === 'default' || p === '*') return '';
  return p.replace(/^\+/, '');
}

/** An inbound number in the one form account_numbers keeps: international digits for phones, else digits. */
export function normalizeNumber(input: string): string {
  const phone = normalizePhone(input, { allowInternational: true });
  if (phone.ok) return phone.e164;
  return input.replace(/[^\d]/g, '').replace(/^00(?=[1-9])/, '');
}

/** Picks a carrier per destination: the longest matching route prefix, else the default route, else the first carrier. */
export class Router {
  private readonly routes: Route[];
  private readonly fallback: string | undefined;

  constructor(routes: Route[], carrierNames: string[]) {
    const known = new Set(carrierNames);
    for (const r of routes) {
      if (!known.has(r.carrier))
        throw new ConfigError(`route "${r.prefix || 'default'}" names carrier "${r.carrier}", which is not configured`);
    }
    this.routes = [...routes].sort((a, b) => b.prefix.length - a.prefix.length);
    this.fallback = carrierNames[0];
  }

  /** The carrier name for a destination (international digits); undefined only when no carrier exists. */
  pick(destination: string): string | undefined {
    for (const r of this.routes) if (destination.startsWith(r.prefix)) return r.carrier;
    return this.fallback;
  }
}
