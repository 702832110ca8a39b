// /admin: the operator console's overview: who is signed in, the live nodes and their roles, and each carrier's
// health as the nodes report it.
import { liveNodes } from '../../store/read-models.ts';
import { when } from '../console/format.ts';
import { fmt } from '../console/i18n.ts';
import { html, table } from '../console/html.ts';
import { alertsSection } from './alerts.ts';
import { carrierHealthOf } from './carriers.ts';
import type { AdminRouter } from './router.ts';

export function registerAdminHome(r: AdminRouter): void {
  r.get('/admin', async (c) => {
    const { w } = c;
    const zone = c.app.config.defaultTimeZone;
    const role = c.operator.role === 'admin' ? w.roleAdmin : w.roleSupport;
    const nodes = await liveNodes(c.app.store.db, c.now);
    const nodeTable = table(
      w.nodesTitle,
      [w.node, w.roles, w.heartbeat],
      nodes.map((n) => [n.name, n.roles.join(', '), when(n.heartbeatAt, zone)]),
      w.noNodes,
    );
    const health = [...carrierHealthOf(nodes)];
    const carrierTable = table(
      w.carriersTitle,
      [w.carrier, w.health, w.perSecond],
      health.map(([name, h]) => [name, h.up ? w.healthUp : w.healthDown, h.perSecond.toFixed(1)]),
      w.noCarriers,
    );
    return c.render(
      w.adminTitle,
      html`<p>${fmt(w.signedInAs, { name: c.operator.name, role })}</p>
${await alertsSection(c)}
<section class="card"><h2>${w.nodesTitle}</h2>${nodeTable}</section>
<section class="card"><h2>${w.carriersTitle}</h2>${carrierTable}</section>`,
    );
  });
}
