// /admin/carriers and /admin/routes: the store's carriers with each one's live health (as the nodes report it with
// their heartbeats), and the routes (prefix and filters, carriers in failover order with weights). Adding,
// changing and removing run the same operations as `yona admin add-carrier | remove-carrier | add-route |
// remove-route` (audited); running nodes apply them within seconds, without a restart.
import { removeCarrier, removeCarrierRoute, setCarrier, setCarrierRoute } from '../../operations/carrier-changes.ts';
import { listCarriers, listRoutes, liveNodes, type NodeRecord } from '../../store/read-models.ts';
import { num } from '../console/format.ts';
import { actionForm, csrfField, html, table } from '../console/html.ts';
import { actAsOperator, refuseForm } from './act.ts';
import { carrierForm, postedCarrier } from './carrier-form.ts';
import { routeTestForm } from './route-test.ts';
import type { AdminContext, AdminRouter } from './router.ts';

interface ReportedHealth {
  carrier: string;
  canSubmit?: boolean;
  down?: boolean;
  submitsPerSecond?: number;
  submitsAccepted?: number;
  submitsRefused?: number;
}

/** Each carrier's health summed over the live nodes' latest snapshots. */
export function carrierHealthOf(
  nodes: NodeRecord[],
): Map<string, { up: boolean; perSecond: number; accepted: number; refused: number }> {
  const out = new Map<string, { up: boolean; perSecond: number; accepted: number; refused: number }>();
  for (const node of nodes) {
    let carriers: ReportedHealth[] = [];
    try {
      carriers = (JSON.parse(node.carrierHealth ?? '{}') as { carriers?: ReportedHealth[] }).carriers ?? [];
    } catch {
      carriers = [];
    }
    for (const h of carriers) {
      const was = out.get(h.carrier) ?? { up: false, perSecond: 0, accepted: 0, refused: 0 };
      out.set(h.carrier, {
        up: was.up || (h.canSubmit === true && h.down !== true),
        perSecond: was.perSecond + (h.submitsPerSecond ?? 0),
        accepted: was.accepted + (h.submitsAccepted ?? 0),
        refused: was.refused + (h.submitsRefused ?? 0),
      });
    }
  }
  return out;
}

function routeLabel(c: AdminContext, prefix: string): string {
  return prefix === '' ? c.w.defaultRoute : prefix;
}

export function registerAdminCarriers(r: AdminRouter): void {
  r.get('/admin/carriers', async (c) => {
    const { w } = c;
    const db = c.app.store.db;
    const health = carrierHealthOf(await liveNodes(db, c.now));
    const admin = c.operator.role === 'admin';
    const list = table(
      w.carriersTitle,
      [w.carrier, w.protocol, w.health, w.perSecond, w.accepted, w.refusedCount, ''],
      (await listCarriers(db)).map((k) => {
        const h = health.get(k.name);
        return [
          html`<a href="/admin/carriers/${encodeURIComponent(k.name)}" dir="ltr">${k.name}</a>`,
          k.protocol,
          h ? (h.up ? w.healthUp : w.healthDown) : w.healthUnknown,
          h ? h.perSecond.toFixed(1) : '',
          h ? num(h.accepted) : '',
          h ? num(h.refused) : '',
          admin
            ? actionForm('/admin/carriers/remove', c.session.csrf, w.remove, { name: k.name }, { danger: true })
            : '',
        ];
      }),
      w.noCarriers,
    );
    const form = admin ? carrierForm(c) : '';
    return c.render(w.carriersTitle, html`<p>${w.appliedLive}</p>${list}${form}`);
  });

  r.post('/admin/carriers/add', async (c) => {
    const posted = postedCarrier(c.form);
    if ('problem' in posted) return refuseForm(c, posted.problem, '/admin/carriers');
    return actAsOperator(c, setCarrier, posted, '/admin/carriers');
  });

  r.post('/admin/carriers/remove', async (c) =>
    actAsOperator(c, removeCarrier, { name: c.form.get('name') ?? '' }, '/admin/carriers'),
  );

  r.get('/admin/routes', async (c) => {
    const { w } = c;
    const db = c.app.store.db;
    const admin = c.operator.role === 'admin';
    const list = table(
      w.routesTitle,
      [w.prefixShort, w.carriersInOrder, w.account, w.sender, w.channel, ''],
      (await listRoutes(db)).map((route) => [
        html`<span dir="ltr">${routeLabel(c, route.prefix)}</span>`,
        html`<span dir="ltr">${route.carrier.split(',').join(' → ')}</span>`,
        route.account,
        route.source,
        route.channel,
        admin
          ? actionForm('/admin/routes/remove', c.session.csrf, w.remove, {
              prefix: route.prefix,
              account: route.account,
              source: route.source,
              channel: route.channel,
            })
          : '',
      ]),
      w.noRoutes,
    );
    const form = admin
      ? html`<form method="post" action="/admin/routes/add" class="card"><h2>${w.addRoute}</h2>${csrfField(c.session.csrf)}
<label for="route-prefix">${w.prefix}</label><input id="route-prefix" name="prefix" inputmode="numeric" pattern="[0-9]*" maxlength="15" dir="ltr">
<label for="route-carriers">${w.carriersInOrder}</label><input id="route-carriers" name="carriers" required maxlength="400" dir="ltr">
<label for="route-account">${w.account}</label><input id="route-account" name="account" maxlength="64">
<label for="route-source">${w.sender}</label><input id="route-source" name="source" maxlength="20">
<label for="route-channel">${w.channel}</label><select id="route-channel" name="channel"><option value="">*</option><option value="sms">sms</option><option value="voice">voice</option></select>
<button type="submit">${w.save}</button></form>`
      : '';
    return c.render(w.routesTitle, html`<p>${w.appliedLive}</p>${list}${form}${routeTestForm(c)}`);
  });

  r.post('/admin/routes/add', async (c) => {
    const f = c.form;
    const spec = (f.get('carriers') ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const known = new Set((await listCarriers(c.app.store.db)).map((k) => k.name));
    if (spec.length === 0 || spec.some((x) => !known.has(x.split(':')[0].trim())))
      return c.render(c.w.refusedTitle, html`<p><a href="/admin/routes">${c.w.back}</a></p>`, {
        code: 400,
        notice: { kind: 'error', text: c.w.unknownCarrier },
      });
    return actAsOperator(
      c,
      setCarrierRoute,
      {
        prefix: (f.get('prefix') ?? '').trim(),
        account: (f.get('account') ?? '').trim(),
        source: (f.get('source') ?? '').trim(),
        channel: f.get('channel') ?? '',
        carrier: spec.join(','),
      },
      '/admin/routes',
    );
  });

  r.post('/admin/routes/remove', async (c) => {
    const f = c.form;
    return actAsOperator(
      c,
      removeCarrierRoute,
      {
        prefix: f.get('prefix') ?? '',
        account: f.get('account') ?? '',
        source: f.get('source') ?? '',
        channel: f.get('channel') ?? '',
      },
      '/admin/routes',
    );
  });
}
