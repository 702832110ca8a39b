// The monitoring kit against a running service: `yona serve` (a child process) binds a standalone
// `yona smsc-sim`; every metric name the shipped alerts (monitoring/prometheus/alerts.yml) and dashboard
// (monitoring/grafana/yona.json) read is exported by its /metrics. Then a real Prometheus (Debian's
// `prometheus`) scrapes the node every second with the shipped rules (a copy whose YonaCarrierDown waits 2 s
// instead of 1m): killing the simulator fires YonaCarrierDown for that carrier, starting it again on the same
// port clears it. Without the prometheus binary that part is skipped with a notice, unless REQUIRE_MONITORING=1.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { ALERTS_FILE, exports, kitMetricNames } from '../helpers/monitoring-kit.ts';

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? 'prometheus';

function prometheusAvailable(): boolean {
  try {
    execFileSync(PROMETHEUS, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.REQUIRE_MONITORING === '1')
      throw new Error(`REQUIRE_MONITORING=1 but ${PROMETHEUS} is not installed (apt-get install prometheus)`);
    console.log('# NOTICE: prometheus not found; the alerting test is skipped (apt-get install prometheus)');
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function until<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The shipped rules with YonaCarrierDown's `for` shortened to `forDuration` (the only change). */
function rulesWithCarrierDownFor(forDuration: string): string {
  const text = readFileSync(ALERTS_FILE, 'utf8');
  const rule = /(- alert: YonaCarrierDown\n(?:\s+(?!- alert:).*\n)*?\s+for: )(\S+)/;
  assert.match(text, rule, 'YonaCarrierDown has a for: duration');
  return text.replace(rule, `$1${forDuration}`);
}

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

const hasPrometheus = prometheusAvailable();
const [target] = await storeTargets();

describe('monitoring kit against yona serve', () => {
  let sim: SmscSimProcess;
  let serve: ServeProcess;
  let cleanup: () => Promise<void>;
  let carriersFile: string;

  before(async () => {
    sim = await startSmscSimProcess(['--receipt-delay', '20']);
    const created = await target.create();
    cleanup = created.cleanup;
    carriersFile = join(created.env.YONA_DATA_DIR, 'carriers.json');
    writeFileSync(
      carriersFile,
      JSON.stringify({
        carriers: [
          {
            name: 'sim',
            host: '127.0.0.1',
            port: sim.smppPort,
            systemId: 'yona',
            password: 'secret',
            downGraceMs: 1000,
            reconnectBaseMs: 200,
            reconnectMaxMs: 1000,
          },
        ],
      }),
    );
    serve = await startServeProcess(created.env, { YONA_CARRIERS_FILE: carriersFile, YONA_NODE_NAME: 'mon-node' });
    const admin = async (...args: string[]) => {
      const run = await serve.cli('admin', ...args);
      assert.equal(run.status, 0, run.stderr);
      return run;
    };
    await admin('create-account', 'mon', '--password', 'secret-pw', '--credits', '100');
    const token = lastLine(await admin('create-token', 'mon'));
    await admin('verify-sender', 'mon', 'Yona');
    const res = await fetch(`http://127.0.0.1:${serve.httpPort}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sms: {
          user: { username: 'mon' },
          source: 'Yona',
          destinations: { phone: ['0541234567'] },
          message: 'monitoring',
        },
      }),
    });
    assert.equal(((await res.json()) as { status: number }).status, 0);
    await until(async () => (await sim.stats()).messagesReceived >= 1, 'the message at the simulator', 20_000);
  });
  after(async () => {
    await serve?.stop();
    await sim?.stop();
    await cleanup?.();
  });

  it('every metric the alerts and the dashboard read is exported by /metrics', async () => {
    const text = await (await fetch(`http://127.0.0.1:${serve.httpPort}/metrics`)).text();
    const names = kitMetricNames();
    assert.ok(names.size >= 15, `only ${names.size} metric names found in the kit`);
    const missing = [...names].filter(([name]) => !exports(text, name)).map(([n, where]) => `${n} (${where[0]})`);
    assert.deepEqual(missing, [], 'metrics the kit reads and /metrics does not export');
  });

  it('Prometheus with the shipped rules fires YonaCarrierDown when the carrier stops and clears it when it is back', {
    skip: !hasPrometheus,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yona-prometheus-'));
    const port = await freePort();
    writeFileSync(join(dir, 'alerts.yml'), rulesWithCarrierDownFor('2s'));
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${join(dir, 'alerts.yml')}`,
        'scrape_configs:',
        '  - job_name: yona',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${serve.httpPort}']`,
        '',
      ].join('\n'),
    );
    let output = '';
    const prometheus: ChildProcess = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (d) => (output += d));
    prometheus.stderr!.on('data', (d) => (output += d));
    const exited = new Promise((r) => prometheus.once('exit', r));
    const api = `http://127.0.0.1:${port}/api/v1`;
    const carrierDown = async () => {
      const body = (await (await fetch(`${api}/alerts`)).json()) as { data: { alerts: Alert[] } };
      return body.data.alerts.find((a) => a.labels.alertname === 'YonaCarrierDown' && a.labels.carrier === 'sim');
    };
    try {
      await until(
        async () => {
          const body = (await (await fetch(`${api}/query?query=yona_carrier_binds_up`)).json()) as {
            data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
          };
          return body.data.result.some((r) => r.metric.carrier === 'sim' && Number(r.value[1]) > 0);
        },
        'Prometheus scraping the node with the carrier bound',
        30_000,
      ).catch((err) => assert.fail(`${err}\n${output}`));
      assert.equal(await carrierDown(), undefined, 'no YonaCarrierDown while the carrier is up');

      const smppPort = sim.smppPort;
      await sim.stop();
      const firing = await until(
        async () => {
          const alert = await carrierDown();
          return alert?.state === 'firing' && alert;
        },
        'YonaCarrierDown firing',
        60_000,
      );
      assert.equal(firing.labels.node, 'mon-node');
      assert.equal(firing.labels.severity, 'critical');

      sim = await startSmscSimProcess(['--port', String(smppPort)]);
      assert.equal(sim.smppPort, smppPort, 'the simulator is back on the same port');
      await until(async () => (await carrierDown()) === undefined, 'YonaCarrierDown cleared', 60_000);
    } finally {
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
