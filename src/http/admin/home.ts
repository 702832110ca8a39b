// /admin: the operator console's overview.
import { fmt } from '../console/i18n.ts';
import { html } from '../console/html.ts';
import type { AdminRouter } from './router.ts';

export function registerAdminHome(r: AdminRouter): void {
  r.get('/admin', async (c) => {
    const { w } = c;
    const role = c.operator.role === 'admin' ? w.roleAdmin : w.roleSupport;
    return c.render(w.adminTitle, html`<p>${fmt(w.signedInAs, { name: c.operator.name, role })}</p>`);
  });
}
