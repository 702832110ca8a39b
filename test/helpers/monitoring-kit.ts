// The shipped monitoring kit (monitoring/): the PromQL expressions of its alerting rules and dashboard, the
// metric names they read, and the metric names a /metrics text exports. Guards the kit against naming a metric
// the service does not export.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ALERTS_FILE = join(import.meta.dirname, '../../monitoring/prometheus/alerts.yml');
export const DASHBOARD_FILE = join(import.meta.dirname, '../../monitoring/grafana/yona.json');

/** Series Prometheus itself makes for every scrape target (not exported by the service). */
const PROMETHEUS_SERIES = new Set(['up']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'bool', 'offset', 'inf', 'nan']);

/** The `expr:` of every rule in a rules file (single-line or a `|` block). */
export function ruleExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const exprs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]);
    if (!m) continue;
    if (!/^[|>]-?$/.test(m[2].trim())) {
      exprs.push(m[2].trim());
      continue;
    }
    const block: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1].trim() === '' || indent(lines[i + 1]) > m[1].length))
      block.push(lines[++i]);
    exprs.push(block.join('\n').trim());
  }
  return exprs;
}

const indent = (line: string) => line.length - line.trimStart().length;

/** The `expr` of every target of every panel (rows' panels included) and of the query variables. */
export function dashboardExpressions(dashboard: DashboardModel): string[] {
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  for (const v of dashboard.templating?.list ?? [])
    if (v.type === 'query') exprs.push(typeof v.query === 'string' ? v.query : v.query.query);
  return exprs;
}

export interface DashboardModel {
  schemaVersion: number;
  panels: Array<{
    type: string;
    title: string;
    datasource?: { type: string; uid: string };
    targets?: Array<{ expr: string; datasource?: { type: string; uid: string } }>;
    panels?: DashboardModel['panels'];
  }>;
  templating?: { list: Array<{ name: string; type: string; query: string | { query: string } }> };
}

/** Metric names a PromQL expression (or a Grafana label_values() query) reads. */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // label lists
    .replace(/\$\{?\w+\}?/g, '') // Grafana variables
    .replace(/label_values\(\s*([a-zA-Z_:][\w:]*)\s*,[^)]*\)/g, '$1'); // label_values(metric, label)
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[\w:.]+/g)) {
    const after = stripped.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(')) continue; // a function
    if (KEYWORDS.has(m[0].toLowerCase()) || /^[\d.]/.test(m[0])) continue; // numbers and durations
    names.add(m[0]);
  }
  return [...names];
}

/** Every metric name the shipped alerts and dashboard read. */
export function kitMetricNames(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const add = (where: string, exprs: string[]) => {
    for (const e of exprs) for (const n of metricNames(e)) byName.set(n, [...(byName.get(n) ?? []), `${where}: ${e}`]);
  };
  add('alerts.yml', ruleExpressions(readFileSync(ALERTS_FILE, 'utf8')));
  add('yona.json', dashboardExpressions(JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as DashboardModel));
  return byName;
}

/** Whether `name` is a series of the exposition `text` (# TYPE lines; a histogram's _bucket, _sum, _count). */
export function exports(text: string, name: string): boolean {
  if (PROMETHEUS_SERIES.has(name)) return true;
  const types = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1], m[2]);
  if (types.has(name)) return true;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name);
  return !!base && ['histogram', 'summary'].includes(types.get(base[1]) ?? '');
}
