// Where the workflow code and its prebuilt bundle live, and how the bundle is made: shared by
// `npm run build:workflows`, the worker entry, the bundle check and the Temporal test suite.
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type LogLevel } from '@temporalio/worker';

const root = path.resolve(import.meta.dirname, '..');

/** The module whose exported functions are the Temporal workflows. */
export const WORKFLOWS_PATH = path.join(root, 'workflows/temporal.ts');

/**
 * The workflow interceptor modules bundled with them (a prebuilt bundle carries its own; the worker's
 * `interceptors.workflowModules` is ignored): process ends counted through a sink, and traces.
 */
export const WORKFLOW_INTERCEPTOR_PATHS = [path.join(root, 'workflows/metrics-interceptor.ts'), path.join(root, 'workflows/tracing-interceptors.ts')];

/** The prebuilt bundle the worker loads (`workflowBundle: { codePath }`). */
export const BUNDLE_PATH = path.join(root, 'dist/workflows-bundle.js');

interface ModuleFactory {
  hooks: { beforeResolve: { tap(name: string, fn: (data: { request: string }) => void): void } };
}

/**
 * Webpack 5.112 treats `node:fs` as a URL scheme it cannot read, so a `node:`-prefixed import failed the
 * bundle with a bare "Webpack finished with errors" instead of Temporal's disallowed-modules message.
 * Dropping the prefix before resolution lets the bundler's own check name the module (and lets the
 * allowed `node:assert`, `node:url`, `node:util` resolve to its workflow-safe versions).
 */
const stripNodeScheme = {
  apply(compiler: { hooks: { normalModuleFactory: { tap(name: string, fn: (factory: ModuleFactory) => void): void } } }) {
    compiler.hooks.normalModuleFactory.tap('StripNodeScheme', (factory) =>
      factory.hooks.beforeResolve.tap('StripNodeScheme', (data) => {
        if (data.request?.startsWith('node:')) data.request = data.request.slice('node:'.length);
      }),
    );
  },
};

/**
 * Bundles workflow code with webpack, offline. Rejects when the code reaches a module workflows may not use
 * (Node built-ins but assert/url/util, @temporalio/client|worker|activity…), even transitively.
 * Explicit `.ts` import specifiers resolve as they are (swc-loader strips the types).
 */
export async function bundleWorkflows(options: { workflowsPath?: string; logLevel?: LogLevel } = {}) {
  return bundleWorkflowCode({
    workflowsPath: options.workflowsPath ?? WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_PATHS,
    logger: new DefaultLogger(options.logLevel ?? 'WARN'),
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), stripNodeScheme] }),
  });
}
