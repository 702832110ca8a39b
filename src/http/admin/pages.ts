// The operator console's page table: every /admin path, who may open it and its navigation entry. 'anyone': the
// sign-in pages; 'operator': any signed-in operator (admin or support) may read it; 'admin': a form that changes
// something, refused (403) to a support operator before its handler runs. The router refuses a path that is not
// here at start-up, and the frame's navigation is read from here, in this order.
import type { AdminWords } from './i18n.ts';

export type AdminAudience = 'anyone' | 'operator' | 'admin';

export interface AdminPage {
  path: string;
  audience: AdminAudience;
  nav?: keyof AdminWords;
}

export const ADMIN_PAGES: readonly AdminPage[] = [
  { path: '/admin', audience: 'operator', nav: 'navHome' },
  { path: '/admin/login', audience: 'anyone' },
  { path: '/admin/login/code', audience: 'anyone' },
  { path: '/admin/login/enrol', audience: 'anyone' },
  { path: '/admin/lang/:lang', audience: 'anyone' },
  { path: '/admin/logout', audience: 'operator' },
  { path: '/admin/accounts', audience: 'operator', nav: 'navAccounts' },
  { path: '/admin/accounts/create', audience: 'admin' },
  { path: '/admin/accounts/:name', audience: 'operator' },
  { path: '/admin/accounts/:name/credit', audience: 'admin' },
  { path: '/admin/accounts/:name/suspend', audience: 'admin' },
  { path: '/admin/accounts/:name/resume', audience: 'admin' },
  { path: '/admin/accounts/:name/password', audience: 'admin' },
  { path: '/admin/accounts/:name/token', audience: 'admin' },
  { path: '/admin/accounts/:name/token/delete', audience: 'admin' },
  { path: '/admin/accounts/:name/ip/add', audience: 'admin' },
  { path: '/admin/accounts/:name/ip/remove', audience: 'admin' },
  { path: '/admin/accounts/:name/ip/check', audience: 'admin' },
  { path: '/admin/accounts/:name/settings', audience: 'admin' },
  { path: '/admin/carriers', audience: 'operator', nav: 'navCarriers' },
  { path: '/admin/carriers/add', audience: 'admin' },
  { path: '/admin/carriers/remove', audience: 'admin' },
  { path: '/admin/routes', audience: 'operator', nav: 'navRoutes' },
  { path: '/admin/routes/add', audience: 'admin' },
  { path: '/admin/routes/remove', audience: 'admin' },
  { path: '/admin/messages', audience: 'operator', nav: 'navMessages' },
  { path: '/admin/messages.csv', audience: 'operator' },
  { path: '/admin/senders', audience: 'operator', nav: 'navSenders' },
  { path: '/admin/senders/approve', audience: 'admin' },
  { path: '/admin/senders/reject', audience: 'admin' },
  { path: '/admin/senders/reserved', audience: 'admin' },
  { path: '/admin/prices', audience: 'operator', nav: 'navPrices' },
  { path: '/admin/prices/default', audience: 'admin' },
  { path: '/admin/prices/country', audience: 'admin' },
  { path: '/admin/prices/account', audience: 'admin' },
  { path: '/admin/margins', audience: 'operator', nav: 'navMargins' },
  { path: '/admin/alerts', audience: 'operator', nav: 'navAlerts' },
  { path: '/admin/alerts/set', audience: 'admin' },
  { path: '/admin/alerts/remove', audience: 'admin' },
  { path: '/admin/alerts/webhook', audience: 'admin' },
  { path: '/admin/audit', audience: 'operator', nav: 'navAudit' },
  { path: '/admin/audit.csv', audience: 'operator' },
];

const byPath = new Map(ADMIN_PAGES.map((p) => [p.path, p]));

/** The table's entry for a routed path; a route missing from the table is a mistake found at start-up. */
export function adminPage(path: string): AdminPage {
  const page = byPath.get(path);
  if (!page) throw new Error(`admin path ${path} is not in the page table (admin/pages.ts)`);
  return page;
}

/** Whether an operator of `role` may use a page (a support operator reads, never changes). */
export function operatorMay(page: AdminPage, role: 'admin' | 'support'): boolean {
  return page.audience !== 'admin' || role === 'admin';
}

/** The navigation of the operator console, in the table's order. */
export function adminNavigation(): Array<{ href: string; label: keyof AdminWords }> {
  return ADMIN_PAGES.filter((p) => p.nav !== undefined).map((p) => ({ href: p.path, label: p.nav! }));
}
