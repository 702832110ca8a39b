// `yona admin alerts ...`: the operator's alert thresholds and webhook, through the same operations as
// /admin/alerts (docs/operator-console.md "Alerts").
//   alerts list [--json]                                   thresholds, the webhook and the open alerts
//   alerts set delivery-rate --below PERCENT --minutes N   a carrier's delivery rate under PERCENT over N minutes
//   alerts set carrier-down --minutes N                    a carrier down (on every live node) for N minutes
//   alerts set queue-age --minutes N                       the oldest due message waiting more than N minutes
//   alerts set push-disabled                               a customer's push URL disabled after failures
//   alerts remove KIND
//   alerts webhook URL --secret SECRET | webhook none      where raises and clears are posted, signed with SECRET
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { ALERT_KINDS, alertFields, isAlertKind, type AlertRule } from '../domain/alerts.ts';
import { removeAlertRule, setAlertRule, setAlertWebhook } from '../operations/alerts.ts';
import { runForOperator } from '../operations/execute.ts';
import type { Store } from '../store/engine/db.ts';
import { activeAlerts, alertWebhook, listAlertRules } from '../store/alerts.ts';
import { didYouMean } from './help.ts';
import { operatorApp, worked } from './operator-app.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

export const ALERTS_USAGE =
  'yona admin alerts list [--json] | set KIND [--below PERCENT] [--minutes N] | remove KIND | webhook URL --secret SECRET | webhook none';
const SUBCOMMANDS = ['list', 'set', 'remove', 'webhook'];

function fail(message: string): never {
  throw new UsageError(message);
}

/** A rule in words, as the list and the console show it. */
export function ruleText(r: AlertRule | null): string {
  if (!r) return 'none';
  switch (r.kind) {
    case 'delivery-rate':
      return `delivery rate below ${r.percent}% over ${r.minutes} min`;
    case 'carrier-down':
      return `carrier down for ${r.minutes} min`;
    case 'queue-age':
      return `oldest due message older than ${r.minutes} min`;
    case 'push-disabled':
      return 'a push URL disabled';
  }
}

function kindArg(text: string | undefined): (typeof ALERT_KINDS)[number] {
  if (text === undefined) fail(`KIND is one of ${ALERT_KINDS.join(', ')}; usage: ${ALERTS_USAGE}`);
  if (!isAlertKind(text))
    fail(`unknown alert kind "${text}"${didYouMean(text, [...ALERT_KINDS])}; one of ${ALERT_KINDS.join(', ')}`);
  return text;
}

function numberArg(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) fail(`${what} must be a number, got "${text}"`);
  return n;
}

function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (err) {
    throw parseArgsProblem(err) ?? err;
  }
}

export async function alertsCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const [sub, ...rest] = args;
  const app = operatorApp(store, config);
  switch (sub) {
    case 'list': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
      if (positionals.length > 0) fail(`unexpected ${positionals[0]}; usage: yona admin alerts list [--json]`);
      const rules = await listAlertRules(store.db);
      const hook = await alertWebhook(store.db);
      const open = await activeAlerts(store.db);
      if (values.json) {
        out(
          JSON.stringify({
            rules: rules.map((r) => ({ kind: r.kind, percent: r.percent, minutes: r.minutes })),
            webhook: hook?.url ?? null,
            active: open.map(alertFields),
          }),
        );
        return;
      }
      if (rules.length === 0) out('no alert thresholds');
      for (const r of rules) out(`${r.kind}: ${ruleText(r)}`);
      out(`webhook: ${hook?.url ?? 'none'}`);
      if (open.length === 0) out('no active alerts');
      for (const a of open)
        out(
          `active: ${a.kind} ${a.subject} value ${a.value} threshold ${a.threshold} since ${new Date(a.raisedAt).toISOString()}`,
        );
      return;
    }
    case 'set': {
      const { values, positionals } = parse(rest, { below: { type: 'string' }, minutes: { type: 'string' } });
      const [k, extra] = positionals;
      if (extra !== undefined) fail(`unexpected ${extra}; usage: ${ALERTS_USAGE}`);
      const kind = kindArg(k);
      if (kind !== 'delivery-rate' && values.below !== undefined) fail('--below goes with delivery-rate only');
      if (kind === 'push-disabled' && values.minutes !== undefined) fail('push-disabled takes no --minutes');
      const doc: Record<string, unknown> = { kind };
      const percent = numberArg(values.below as string | undefined, '--below');
      const minutes = numberArg(values.minutes as string | undefined, '--minutes');
      if (percent !== undefined) doc.percent = percent;
      if (minutes !== undefined) doc.minutes = minutes;
      const r = worked(await runForOperator(app, setAlertRule, doc));
      out(`${kind}: ${ruleText(r.before as AlertRule | null)} -> ${ruleText(r.after as AlertRule | null)}`);
      return;
    }
    case 'remove': {
      const [k, extra] = rest;
      if (extra !== undefined) fail('usage: yona admin alerts remove KIND');
      const kind = kindArg(k);
      const r = worked(await runForOperator(app, removeAlertRule, { kind }));
      out(`${kind}: ${ruleText(r.before as AlertRule | null)} -> none`);
      return;
    }
    case 'webhook': {
      const { values, positionals } = parse(rest, { secret: { type: 'string' } });
      const [url, extra] = positionals;
      if (!url || extra !== undefined) fail('usage: yona admin alerts webhook URL --secret SECRET | webhook none');
      if (url === 'none') {
        if (values.secret !== undefined) fail('webhook none takes no --secret');
        const r = worked(await runForOperator(app, setAlertWebhook, { url: null }));
        out(`webhook: ${r.before ?? 'none'} -> none`);
        return;
      }
      if (values.secret === undefined) fail('the webhook needs --secret SECRET (its posts are signed with it)');
      const r = worked(await runForOperator(app, setAlertWebhook, { url, secret: values.secret as string }));
      out(`webhook: ${r.before ?? 'none'} -> ${r.after}`);
      return;
    }
    default:
      fail(
        sub === undefined
          ? `usage: ${ALERTS_USAGE}`
          : `unknown subcommand "${sub}"${didYouMean(sub, SUBCOMMANDS)}; usage: ${ALERTS_USAGE}`,
      );
  }
}
