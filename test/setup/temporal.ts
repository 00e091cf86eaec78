// One Temporal dev server per test run, for the Temporal variant of every process suite (test/processes/):
// the CLI is found or installed (scripts/temporal-cli.ts), the server runs headless on a free port with an
// in-memory database and the project's search attributes, and the workflows are bundled once for the workers.
// Without a CLI the Temporal variants are skipped with one line, except under CI=true, where the run fails.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { findOrInstallTemporal, freePort, startDevServer } from '../../scripts/temporal-cli.ts';
import { ownProcess, testRunRoot } from './run-cleanup.ts';

export interface TemporalTestServer {
  address: string;
  namespace: string;
  /** The prebuilt workflow bundle (worker/bundle.ts), as the worker loads it (`workflowBundle: { codePath }`). */
  bundlePath: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Temporal server the Temporal variants run on, or null when they are skipped. */
    temporal: TemporalTestServer | null;
  }
}

export default async function setup(project: TestProject) {
  let cli: string;
  try {
    cli = findOrInstallTemporal((line) => console.log(`Temporal CLI: ${line}`));
  } catch (error) {
    const line = `Temporal suites skipped: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${line} (a failure under CI=true)`);
    console.log(line);
    project.provide('temporal', null);
    return;
  }
  let release = () => {};
  const dir = await fs.mkdtemp(path.join(testRunRoot(), 'temporal-'));
  const bundlePath = path.join(dir, 'workflows-bundle.js');
  // While it starts, startDevServer kills it on 'exit' itself; once up, run-cleanup stops it in order.
  const [server, bundle] = await Promise.allSettled([startDevServer({ cli, port: await freePort() }), bundleWorkflows()]);
  if (server.status === 'fulfilled' && server.value.process.pid) release = ownProcess(server.value.process.pid);
  if (server.status === 'rejected' || bundle.status === 'rejected') {
    if (server.status === 'fulfilled') await server.value.stop();
    release();
    await fs.rm(dir, { recursive: true, force: true });
    throw server.status === 'rejected' ? server.reason : (bundle as PromiseRejectedResult).reason;
  }
  await fs.writeFile(bundlePath, bundle.value.code);
  project.provide('temporal', { address: server.value.address, namespace: server.value.namespace, bundlePath });
  return async () => {
    await server.value.stop();
    release();
    await fs.rm(dir, { recursive: true, force: true });
  };
}
