// No Docker engine runs in the tests: this checks the compose file and the Dockerfile against each other
// and against the service's configuration schema.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema, loadConfig, parseDuration } from '../../lib/config.ts';
import { cliTypeOf, SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';

interface Service {
  image?: string;
  build?: { context?: string; dockerfile?: string; target?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number)[];
  expose?: (string | number)[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string | string[] };
  command?: string | string[];
  stop_grace_period?: string;
}

const root = path.resolve(import.meta.dirname, '../..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
// Values for the variables the file requires the operator to set.
const REQUIRED = { MASTER_KEY: 'ab'.repeat(32) } as Record<string, string>;

/** Compose interpolation: `${VAR:-default}` takes the default, `${VAR:?message}` a test value. */
function interpolate(value: string): string {
  return value.replace(/\$\{(\w+)(?::?([-?])([^}]*))?\}/g, (_m, name: string, kind?: string, rest?: string) => {
    if (kind === '-') return rest ?? '';
    const given = REQUIRED[name];
    if (given === undefined) throw new Error(`no test value for required variable ${name}`);
    return given;
  });
}

function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  const pairs = Array.isArray(env) ? env.map((e) => e.split(/=(.*)/s, 2) as [string, string]) : Object.entries(env).map(([k, v]) => [k, String(v ?? '')]);
  return Object.fromEntries(pairs.map(([k, v]) => [k, interpolate(v ?? '')]));
}

const containerPort = (mapping: string | number) => Number(String(mapping).split(':').at(-1)?.split('/')[0]);
const healthTest = (service: Service) => [service.healthcheck?.test ?? []].flat().join(' ');
const commandText = (service: Service) => [service.command ?? []].flat().join('\n');
const waitsFor = (service: Service, name: string) => (Array.isArray(service.depends_on) ? undefined : service.depends_on?.[name]?.condition);
const imageTag = (service: Service) => service.image?.split(':')[1];

const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
// Each stage's text, by the name given in `FROM <image> AS <name>`.
const stages = new Map(
  dockerfile.split(/^(?=FROM\s)/im).flatMap((text) => {
    const name = /^FROM\s+\S+\s+AS\s+(\S+)/i.exec(text)?.[1];
    return name ? [[name.toLowerCase(), text] as const] : [];
  }),
);

describe('docker-compose.yml', () => {
  it('has the services of the scale-out shape', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgres', 'temporal', 'temporal-ui', 'api', 'worker']));
  });

  it.each(['api', 'worker'])('builds %s from a stage of the Dockerfile', (name) => {
    const build = services[name]?.build;
    expect(path.resolve(root, build?.context ?? '.', build?.dockerfile ?? 'Dockerfile')).toBe(path.join(root, 'Dockerfile'));
    expect(build?.target && stages.has(build.target.toLowerCase()), `stage ${build?.target}`).toBe(true);
  });

  it.each(['api', 'worker'])('gives %s only variables the configuration knows, with valid values', (name) => {
    const env = environment(services[name] ?? {});
    expect(Object.keys(env).filter((key) => !(key in configSchema.in.shape))).toEqual([]);
    const config = loadConfig(env);
    expect(config.processEngine).toBe('temporal');
    expect(config.temporalNamespace).toBe('default');
    expect(config.host).toBe('0.0.0.0');
    expect(config.masterKey).toBe(REQUIRED.MASTER_KEY);

    const [host, port] = (config.temporalAddress ?? '').split(':');
    expect(host).toBe('temporal');
    expect(services.temporal?.ports?.map(containerPort)).toContain(Number(port));

    const db = new URL(config.databaseUrl ?? '');
    const pg = environment(services[db.hostname] ?? {});
    expect(services[db.hostname]?.image).toMatch(/^postgres:/);
    expect([db.port, db.username, db.password, db.pathname.slice(1)]).toEqual(['5432', pg.POSTGRES_USER, pg.POSTGRES_PASSWORD, pg.POSTGRES_DB]);
  });

  it("exposes the worker's Prometheus metrics on the address it binds, and only the worker has one", () => {
    const worker = services.worker ?? {};
    const [host, port] = (loadConfig(environment(worker)).temporalMetricsAddress ?? '').split(':');
    expect(host).toBe('0.0.0.0');
    expect(worker.expose?.map(Number)).toContain(Number(port));
    expect(loadConfig(environment(services.api ?? {})).temporalMetricsAddress).toBeUndefined();
  });

  it('publishes the api on the port it listens on, and checks its health there', () => {
    const api = services.api ?? {};
    const { port } = loadConfig(environment(api));
    expect(api.ports?.map(containerPort)).toContain(port);
    expect(healthTest(api)).toContain(`http://127.0.0.1:${port}/v1/health`);
  });

  it('has a healthcheck on every service another waits for to be healthy', () => {
    const awaited = Object.values(services).flatMap((s) =>
      Array.isArray(s.depends_on)
        ? []
        : Object.entries(s.depends_on ?? {})
            .filter(([, d]) => d.condition === 'service_healthy')
            .map(([n]) => n),
    );
    expect(awaited.length).toBeGreaterThan(0);
    for (const name of new Set(awaited)) expect(healthTest(services[name] ?? {}), `${name} healthcheck`).not.toBe('');
  });

  it('has Prometheus scrape the metrics ports the api and the worker listen on, and Grafana load the dashboard', () => {
    const scrape = parse(fs.readFileSync(path.join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    };
    const portOf = (job: string) => scrape.scrape_configs.find((c) => c.job_name === job)?.dns_sd_configs[0];
    const api = loadConfig(environment(services.api ?? {}));
    const worker = loadConfig(environment(services.worker ?? {}));
    expect(portOf('iam-api')).toEqual({ names: ['api'], type: 'A', port: api.metricsListener?.port });
    expect(api.metricsListener?.host).toBe('0.0.0.0');
    expect(services.api?.expose?.map(containerPort)).toContain(api.metricsListener?.port);
    expect(portOf('iam-worker')).toEqual({ names: ['worker'], type: 'A', port: worker.workerMetricsListener?.port });
    expect(services.worker?.expose?.map(containerPort)).toContain(worker.workerMetricsListener?.port);
    expect(portOf('temporal-sdk')?.port).toBe(Number(worker.temporalMetricsAddress?.split(':')[1]));
    const volumes = (name: string) => ((services[name] as { volumes?: string[] } | undefined)?.volumes ?? []).join('\n');
    expect(volumes('prometheus')).toContain('./deploy/prometheus:/etc/prometheus');
    expect(volumes('grafana')).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning');
    expect(volumes('grafana')).toContain('./deploy/grafana/dashboards:/var/lib/grafana/dashboards');
    expect(fs.existsSync(path.join(root, 'deploy/grafana/dashboards/iam.json'))).toBe(true);
  });

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      // Prometheus' images are tagged `v2.53.2`.
      if (service.image) expect(imageTag(service), `${name} image ${service.image}`).toMatch(/^v?\d[\w.-]*$/);
    }
  });

  it('runs the Temporal server image after a one-shot schema job of the same version (auto-setup is deprecated)', () => {
    const temporal = services.temporal ?? {};
    const schema = services['temporal-schema'] ?? {};
    expect(temporal.image).toMatch(/^temporalio\/server:/);
    expect(schema.image).toBe(`temporalio/admin-tools:${imageTag(temporal)}`);
    expect(waitsFor(temporal, 'temporal-schema')).toBe('service_completed_successfully');
    const db = environment(temporal).POSTGRES_SEEDS ?? '';
    expect(waitsFor(schema, db)).toBe('service_healthy');
    expect(commandText(schema)).toContain(`temporal-sql-tool --plugin ${environment(temporal).DB} --ep ${db} `);
    expect(commandText(schema)).toContain('for db in temporal temporal_visibility');
    expect(commandText(schema)).toContain('update-schema');
  });

  it('creates the namespace the api and worker use, with every search attribute of the workflows, before they start', () => {
    const init = services['temporal-init'] ?? {};
    const initEnv = environment(init);
    const config = loadConfig(environment(services.api ?? {}));
    expect(init.image).toBe(services['temporal-schema']?.image);
    expect(waitsFor(init, 'temporal')).toBe('service_healthy');
    expect([initEnv.TEMPORAL_ADDRESS, initEnv.TEMPORAL_NAMESPACE]).toEqual([config.temporalAddress, config.temporalNamespace]);
    const script = commandText(init);
    expect(script).toContain('temporal operator namespace create --namespace "$$TEMPORAL_NAMESPACE"');
    expect(/for attribute in (.*); do/.exec(script)?.[1]?.split(' ')).toEqual(SEARCH_ATTRIBUTES.map((key) => `${key.name}=${cliTypeOf(key)}`));
    expect(script).toContain('temporal operator search-attribute create --namespace "$$TEMPORAL_NAMESPACE" --name "$$name" --type "$$type"');
    expect(script).toMatch(/until temporal operator search-attribute list .*grep -qw "\$\$name"/);
    for (const name of ['api', 'worker', 'temporal-ui']) expect(waitsFor(services[name] ?? {}, 'temporal-init'), name).toBe('service_completed_successfully');
  });
});

describe('Dockerfile', () => {
  it('runs the api and the worker entry points as the unprivileged node user', () => {
    // Node options (the young generation's size) may come before the entry point.
    expect(stages.get('api')).toMatch(/^CMD \["node", (?:"--[^"]+", )*"api\/server\.ts"\]/m);
    expect(stages.get('worker')).toMatch(/^CMD \["node", (?:"--[^"]+", )*"worker\/index\.ts"\]/m);
    expect(fs.existsSync(path.join(root, 'api/server.ts'))).toBe(true);
    expect(stages.get('runtime')).toMatch(/^USER node$/m);
    expect(stages.get('worker')).toMatch(/^USER node$/m);
  });

  it('prebuilds the workflow bundle into the worker image', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(stages.get('worker')).toMatch(/^RUN npm run build:workflows$/m);
    const script = pkg.scripts['build:workflows']?.replace(/^node /, '') ?? '';
    expect(stages.get('worker')).toContain(`COPY ${script} `);
  });

  it('gives the worker a stop grace period longer than its shutdown grace time, so it drains before a SIGKILL', () => {
    const worker = services.worker ?? {};
    const { workerShutdownGraceMs } = loadConfig(environment(worker));
    expect(parseDuration(worker.stop_grace_period ?? '10s')).toBeGreaterThan(workerShutdownGraceMs);
  });
});
