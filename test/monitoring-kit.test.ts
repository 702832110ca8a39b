// The shipped monitoring kit as files: the Grafana dashboard is a dashboard model whose every query goes to the
// `${datasource}` Prometheus variable, the alerting rules and the dashboard cover what an operator watches, and
// the metric names are read out of their expressions (the end-to-end test checks /metrics exports them all).
// With promtool installed (Debian's prometheus) the rules pass `promtool check rules` and their unit tests.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ALERTS_FILE,
  DASHBOARD_FILE,
  dashboardExpressions,
  metricNames,
  ruleExpressions,
  type DashboardModel,
} from './helpers/monitoring-kit.ts';

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as DashboardModel & {
  title: string;
  uid: string;
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
};

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's syntax for the dashboard's datasource variable
const PROMETHEUS_SOURCE = { type: 'prometheus', uid: '${datasource}' };

function promtoolAvailable(): boolean {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.REQUIRE_MONITORING === '1') throw new Error('REQUIRE_MONITORING=1 but promtool is not installed');
    console.log('# NOTICE: promtool not found; the rules checks are skipped (apt-get install prometheus)');
    return false;
  }
}

describe('monitoring kit files', () => {
  it('the dashboard is a Grafana model whose every query uses its datasource variable (Prometheus)', () => {
    assert.equal(typeof dashboard.schemaVersion, 'number');
    assert.ok(dashboard.title && dashboard.uid);
    const source = dashboard.templating.list.find((v) => v.name === 'datasource');
    assert.deepEqual([source?.type, source?.query], ['datasource', 'prometheus']);
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    assert.ok(graphs.length >= 10);
    for (const p of graphs) {
      assert.deepEqual(p.datasource, PROMETHEUS_SOURCE, p.title);
      assert.ok(p.targets?.length, `${p.title} has queries`);
      for (const t of p.targets ?? []) {
        assert.deepEqual(t.datasource, PROMETHEUS_SOURCE, p.title);
        assert.ok(metricNames(t.expr).length > 0, `${p.title}: ${t.expr}`);
      }
    }
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    assert.deepEqual(rows, ['Traffic', 'Delivery rate', 'Queues', 'Carriers', 'Pushes', 'Voice calls', 'Nodes']);
  });

  it('the alerts cover carriers down, delivery rate, old queues, disabled pushes, heartbeats and store errors', () => {
    const text = readFileSync(ALERTS_FILE, 'utf8');
    const alerts = [...text.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    assert.deepEqual(alerts, [
      'YonaCarrierDown',
      'YonaCarrierDeliveryRateLow',
      'YonaCarrierQueueTooOld',
      'YonaDueQueueTooOld',
      'YonaPushRegistrationsDisabled',
      'YonaNodeHeartbeatMissing',
      'YonaNodeUnreachable',
      'YonaStoreErrors',
    ]);
    assert.equal(ruleExpressions(text).length, alerts.length);
  });

  it('reads metric names out of PromQL, not functions, labels, ranges or Grafana variables', () => {
    assert.deepEqual(
      metricNames(
        'sum by (carrier) (increase(yona_a_total{outcome="accepted",x=~"$node"}[15m])) / on (carrier) yona_b offset 5m > 0.9 and up{job="yona"}',
      ),
      ['yona_a_total', 'yona_b', 'up'],
    );
    assert.deepEqual(metricNames('histogram_quantile(0.95, sum by (le) (rate(yona_h_bucket[$__rate_interval])))'), [
      'yona_h_bucket',
    ]);
    assert.deepEqual(metricNames('label_values(yona_node_info, node)'), ['yona_node_info']);
    assert.ok(dashboardExpressions(dashboard).length > 15);
  });

  const hasPromtool = promtoolAvailable();
  it('promtool checks the rules and runs their unit tests', { skip: !hasPromtool }, () => {
    const dir = join(import.meta.dirname, '../monitoring/prometheus');
    execFileSync('promtool', ['check', 'rules', join(dir, 'alerts.yml')], { stdio: 'pipe' });
    execFileSync('promtool', ['test', 'rules', join(dir, 'alerts.test.yml')], { stdio: 'pipe' });
  });
});
