// The console's page table: every console path, who may open it (signed out, any signed-in account, resellers
// only) and its entry in the navigation. The router refuses a path to anyone outside its audience (a reseller-only
// page answers 404 to other accounts, as a page that does not exist), and the frame's navigation is read from here.
import type { Messages } from './i18n.ts';

/** Who may open a path: anyone (the sign-in pages, assets), any signed-in account, or resellers only. */
export type Audience = 'anyone' | 'account' | 'reseller';

export interface ConsolePage {
  /** The path as fastify routes it (`:name` for a parameter). */
  path: string;
  audience: Audience;
  /** The navigation entry's label, for a page listed in the navigation (in this order). */
  nav?: keyof Messages;
}

export const CONSOLE_PAGES: readonly ConsolePage[] = [
  { path: '/console', audience: 'account' },
  { path: '/console/login', audience: 'anyone' },
  { path: '/console/login/code', audience: 'anyone' },
  { path: '/console/logout', audience: 'account' },
  { path: '/console/lang/:lang', audience: 'anyone' },
  { path: '/console/assets/:name', audience: 'anyone' },
  { path: '/console/send', audience: 'account', nav: 'navSend' },
  { path: '/console/messages', audience: 'account', nav: 'navMessages' },
  { path: '/console/messages.csv', audience: 'account' },
  { path: '/console/messages/:id', audience: 'account' },
  { path: '/console/campaigns', audience: 'account', nav: 'navCampaigns' },
  { path: '/console/campaigns/:id', audience: 'account' },
  { path: '/console/campaigns/:id/messages.csv', audience: 'account' },
  { path: '/console/campaigns/:id/cancel', audience: 'account' },
  { path: '/console/codes', audience: 'account' },
  { path: '/console/inbound', audience: 'account', nav: 'navInbound' },
  { path: '/console/whatsapp/threads', audience: 'account' },
  { path: '/console/whatsapp/threads/:business/:user', audience: 'account' },
  { path: '/console/whatsapp/threads/:business/:user/reply', audience: 'account' },
  { path: '/console/whatsapp/threads/:business/:user/template', audience: 'account' },
  { path: '/console/whatsapp/templates', audience: 'account', nav: 'navWhatsapp' },
  { path: '/console/tokens', audience: 'account', nav: 'navTokens' },
  { path: '/console/tokens/new', audience: 'account' },
  { path: '/console/tokens/delete', audience: 'account' },
  { path: '/console/ips', audience: 'account', nav: 'navIps' },
  { path: '/console/ips/add', audience: 'account' },
  { path: '/console/ips/remove', audience: 'account' },
  { path: '/console/ips/check', audience: 'account' },
  { path: '/console/push', audience: 'account', nav: 'navPush' },
  { path: '/console/push/register', audience: 'account' },
  { path: '/console/push/test', audience: 'account' },
  { path: '/console/push/disable', audience: 'account' },
  { path: '/console/push/enable', audience: 'account' },
  { path: '/console/push/delete', audience: 'account' },
  { path: '/console/push/secret', audience: 'account' },
  { path: '/console/push/secret/clear', audience: 'account' },
  { path: '/console/balance', audience: 'account', nav: 'navBalance' },
  { path: '/console/balance/ledger.csv', audience: 'account' },
  { path: '/console/balance/low-balance', audience: 'account' },
  { path: '/console/senders', audience: 'account', nav: 'navSenders' },
  { path: '/console/senders/request', audience: 'account' },
  { path: '/console/lists', audience: 'account', nav: 'navLists' },
  { path: '/console/lists/:id', audience: 'account' },
  { path: '/console/lists/:id/add', audience: 'account' },
  { path: '/console/lists/:id/delete', audience: 'account' },
  { path: '/console/blocklist', audience: 'account', nav: 'navBlocklist' },
  { path: '/console/blocklist/remove', audience: 'account' },
  { path: '/console/birthdays', audience: 'account', nav: 'navBirthdays' },
  { path: '/console/birthdays/active', audience: 'account' },
  { path: '/console/smpp', audience: 'account', nav: 'navSmpp' },
  { path: '/console/security', audience: 'account', nav: 'navSecurity' },
  { path: '/console/security/password', audience: 'account' },
  { path: '/console/security/totp/start', audience: 'account' },
  { path: '/console/security/totp/confirm', audience: 'account' },
  { path: '/console/security/totp/off', audience: 'account' },
  { path: '/console/subaccounts', audience: 'reseller', nav: 'navSubs' },
  { path: '/console/subaccounts/transfer', audience: 'reseller' },
  { path: '/console/subaccounts/suspend', audience: 'reseller' },
  { path: '/console/subaccounts/resume', audience: 'reseller' },
  { path: '/console/subaccounts/:username/campaigns', audience: 'reseller' },
  { path: '/console/subaccounts/:username/messages', audience: 'reseller' },
];

const byPath = new Map(CONSOLE_PAGES.map((p) => [p.path, p]));

/** The table's entry for a routed path; a route missing from the table is a mistake found at start-up. */
export function consolePage(path: string): ConsolePage {
  const page = byPath.get(path);
  if (!page) throw new Error(`console path ${path} is not in the page table (pages.ts)`);
  return page;
}

/** Whether an account (a reseller or not; undefined: signed out) may open a page. */
export function mayOpen(page: ConsolePage, account: { is_reseller: unknown } | undefined): boolean {
  if (page.audience === 'anyone') return true;
  if (!account) return false;
  return page.audience === 'account' || !!account.is_reseller;
}

/** The navigation an account sees: the table's entries it may open, in the table's order. */
export function navigationFor(account: { is_reseller: unknown }): Array<{ href: string; label: keyof Messages }> {
  return CONSOLE_PAGES.filter((p) => p.nav !== undefined && mayOpen(p, account)).map((p) => ({
    href: p.path,
    label: p.nav!,
  }));
}
