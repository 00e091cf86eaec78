// A real Prometheus (Debian's package, see test/setup/prometheus.ts) scrapes a running test app through its METRICS_PORT
// listener every second and answers a PromQL query about it; promtool checks the shipped config and rules; every metric
// the rules and the Grafana dashboard name is one the service exports.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { startMetricsListener } from '../../lib/metrics/listener.ts';
import { createWorkerRegistry } from '../../lib/metrics/worker-registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const tools = inject('prometheus');
const root = path.resolve(import.meta.dirname, '../..');
const deploy = (file: string) => path.join(root, 'deploy', file);

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });

/** Metric names in PromQL text: `iam_…` identifiers, histogram series mapped to their histogram. */
const namesIn = (expr: string) => [...expr.matchAll(/(?<![:\w])iam_[a-z0-9_]+(?![:\w])/g)].map(([n]) => n.replace(/_(bucket|count|sum)$/, ''));
/** What an exposition declares (`# TYPE name kind`). */
const declared = (text: string) => new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map(([, n]) => n!));

describe.skipIf(!tools)('Prometheus', () => {
  let t: TestApp;
  let prometheus: ChildProcess | undefined;
  let dir: string;
  let listener: { close(): Promise<void> };
  let webPort: number;

  beforeAll(async () => {
    t = await startTestApp();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-prometheus-'));
    const metricsPort = await freePort();
    listener = await startMetricsListener(t.app.metrics, { host: '127.0.0.1', port: metricsPort }, (e) => console.error(e));
    webPort = await freePort();
    const config = `global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: iam-test\n    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]\n`;
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
    prometheus = spawn(
      tools!.prometheus,
      [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${webPort}`],
      { stdio: 'ignore' },
    );
  });
  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    if (prometheus && prometheus.exitCode === null) await new Promise((resolve) => prometheus!.once('exit', resolve));
    await listener?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('scrapes the service and answers a PromQL query about the routes it served', async () => {
    const token = await t.token('tenants:read');
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: 'GET', url: `/v1/tenants/${t.credentials.tenantId}`, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(200);
    }
    const query = encodeURIComponent('sum(iam_http_requests_total{job="iam-test",route="/v1/tenants/:tenantId",status="200"})');
    // Prometheus starts, scrapes every second, then answers: 0 until the sample is there (or while it is not up yet).
    const answered = async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${webPort}/api/v1/query?query=${query}`);
        const body = (await res.json()) as { status: string; data: { result: { value: [number, string] }[] } };
        return body.status === 'success' ? Number(body.data.result[0]?.value[1] ?? 0) : 0;
      } catch {
        return 0;
      }
    };
    await expect.poll(answered, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(3);
  });

  it('ships a config and rules promtool accepts', () => {
    const out = execFileSync(tools!.promtool, ['check', 'config', deploy('prometheus/prometheus.yml')], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS: deploy\/prometheus\/prometheus\.yml is valid|is valid prometheus config/);
    expect(execFileSync(tools!.promtool, ['check', 'rules', deploy('prometheus/rules.yml')], { encoding: 'utf8' })).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('names in the rules and the dashboard only metrics the api or the worker exports', async () => {
    const exported = new Set([...declared(await t.app.metrics.render()), ...declared(await createWorkerRegistry().render())]);
    const rules = parse(fs.readFileSync(deploy('prometheus/rules.yml'), 'utf8')) as { groups: { rules: { expr: string; record?: string }[] }[] };
    const recorded = new Set(rules.groups.flatMap((g) => g.rules.flatMap((r) => r.record ?? [])));
    const dashboard = JSON.parse(fs.readFileSync(deploy('grafana/dashboards/iam.json'), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = [...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)), ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((x) => x.expr))];
    const named = new Set(exprs.flatMap(namesIn));
    expect([...named].filter((n) => !exported.has(n) && !recorded.has(n))).toEqual([]);
    // The dashboard covers RED per route, outbox, processes, decisions, pool and the event loop.
    for (const metric of [
      'iam_http_requests_total',
      'iam_http_request_duration_seconds',
      'iam_outbox_entries',
      'iam_dispatcher_lag_seconds',
      'iam_process_starts_total',
      'iam_process_failures_total',
      'iam_decision_duration_seconds',
      'iam_db_pool_connections',
      'iam_nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(named).toContain(metric);
    }
  });
});
