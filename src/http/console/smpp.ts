// The account's SMPP sessions at /console/smpp: its binds to the SMPP server live now over every node (type, the
// address they came from, node, since when, submits per second) and the receipts and replies waiting in the store
// for a receiver bind.
import { countSmppOutboxWaiting, listSmppBinds } from '../../store/read-models.ts';
import { when } from './format.ts';
import { html, table, type HtmlValue } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

function bindWord(t: Messages, type: string): string {
  if (type === 'transmitter') return t.smppTransmitter;
  if (type === 'receiver') return t.smppReceiver;
  if (type === 'transceiver') return t.smppTransceiver;
  return type;
}

async function sessionsPage(c: PageContext) {
  const { t } = c;
  const accountId = Number(c.account.id);
  const db = c.app.store.db;
  // A bind its node has not refreshed within the node lease time belongs to a node that died.
  const binds = await listSmppBinds(db, { seenSince: c.now - c.app.config.node.leaseMs, accountId });
  const waiting = (await countSmppOutboxWaiting(db, [accountId])).get(accountId) ?? 0;
  const cells = binds.map((b): HtmlValue[] => [
    html`${bindWord(t, b.bindType)}${b.tls ? html` <span class="badge">${t.smppTls}</span>` : ''}`,
    html`<span class="nowrap">${b.remoteAddress}</span>`,
    b.node,
    html`<span class="nowrap">${when(b.since, c.account.time_zone)}</span>`,
    html`<span class="num">${String(b.submitsPerSecond)}</span>`,
  ]);
  return c.render(
    t.smppTitle,
    html`<p class="muted">${t.smppIntro}</p>
<p id="smpp-waiting"><strong>${fmt(t.smppWaiting, { count: waiting })}</strong></p>
${table(t.smppBinds, [t.smppBindType, t.smppFrom, t.smppNode, t.smppSince, t.smppRate], cells, t.smppNone)}`,
  );
}

export function registerSmpp(r: ConsoleRouter): void {
  r.get('/console/smpp', (c) => sessionsPage(c));
}
