// /admin: the operator console's overview: who is signed in, the active alerts, the traffic now and over the last
// 24 hours (dashboard-traffic.ts, read by dashboard-day.ts), the delivery rate per carrier, the queues, the failing push URLs and the live
// nodes with their roles and carriers' health (dashboard-health.ts). Every figure is read from the shared store,
// so it is the cluster's on PostgreSQL; docs/operator-console.md says what each one counts.
import { fmt } from '../console/i18n.ts';
import { html } from '../console/html.ts';
import { alertsSection } from './alerts.ts';
import { dayFigures } from './dashboard-day.ts';
import { deliverySection, failingPushSection, nodesSection, queuesSection } from './dashboard-health.ts';
import { trafficDaySection, trafficNowSection } from './dashboard-traffic.ts';
import type { AdminRouter } from './router.ts';

export function registerAdminHome(r: AdminRouter): void {
  r.get('/admin', async (c) => {
    const { w } = c;
    const role = c.operator.role === 'admin' ? w.roleAdmin : w.roleSupport;
    // At once: on PostgreSQL the sections' queries overlap on the pool's connections (a view was the sum of about
    // fifteen round trips); the embedded store runs them one after another on its one connection anyway.
    const day = dayFigures(c.app.store.db, c.now);
    const sections = await Promise.all([
      alertsSection(c),
      trafficNowSection(c),
      day.then((d) => trafficDaySection(c, d)),
      day.then((d) => deliverySection(c, d)),
      queuesSection(c),
      failingPushSection(c),
      nodesSection(c),
    ]);
    return c.render(w.adminTitle, html`<p>${fmt(w.signedInAs, { name: c.operator.name, role })}</p>${sections}`, {
      scripts: ['uPlot.iife.min.js', 'chart.js'],
      styles: ['uPlot.min.css'],
    });
  });
}
