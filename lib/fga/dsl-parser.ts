// parseModelDsl (./model.ts) off the caller's event loop: one worker thread (./dsl-worker.ts), started on first use,
// parses one model at a time. A parse that runs past `timeoutMs` ends the worker (ANTLR cannot be interrupted) and
// is a 400 `invalid_authorization_model`; the next parse starts a new worker. Errors are the ones parseModelDsl throws.
import { Worker } from 'node:worker_threads';
import { MODEL_LIMITS } from './model.ts';
import { FgaError, type AuthorizationModel, type FgaErrorCode } from './types.ts';

export interface DslRequest {
  id: number;
  dsl: string;
}
export type DslReply =
  | { id: number; model: AuthorizationModel }
  | { id: number; error: { code?: FgaErrorCode; message: string; position?: { line: number; column: number } | undefined } };

export interface DslParser {
  /** The DSL → the JSON model (validated; `id` empty), as parseModelDsl answers it; `timeoutMs` overrides the parser's. */
  parse(dsl: string, timeoutMs?: number): Promise<AuthorizationModel>;
  /** Ends the worker; parses still waiting fail. */
  close(): Promise<void>;
}

/** How long the worker may take to start (load the transformer) before a parse fails as the service's own error. */
const START_TIMEOUT_MS = 30_000;

interface Job {
  dsl: string;
  timeoutMs: number;
  resolve: (model: AuthorizationModel) => void;
  reject: (error: Error) => void;
}

export function createDslParser(options: { timeoutMs?: number } = {}): DslParser {
  const defaultTimeoutMs = options.timeoutMs ?? MODEL_LIMITS.dslParseMs;
  const queue: Job[] = [];
  let worker: { thread: Worker; ready: Promise<void> } | undefined;
  let busy = false;
  let nextId = 0;
  let closed = false;

  const start = () => {
    const thread = new Worker(new URL('./dsl-worker.ts', import.meta.url));
    // Always listened to, so a worker failing between parses never throws in the caller's thread: the next parse starts another.
    const forget = () => {
      if (worker?.thread === thread) worker = undefined;
    };
    thread.on('error', forget).on('exit', forget);
    const ready = new Promise<void>((resolve, reject) => {
      const settle = (then: () => void) => {
        clearTimeout(timer);
        thread.off('message', onReady).off('error', onError).off('exit', onExit);
        then();
      };
      const onReady = () => settle(resolve);
      const onError = (error: Error) => settle(() => reject(error));
      const onExit = () => settle(() => reject(new Error('The DSL parser stopped.')));
      const timer = setTimeout(() => settle(() => reject(new Error(`The DSL parser did not start within ${START_TIMEOUT_MS / 1000} s.`))), START_TIMEOUT_MS);
      thread.once('message', onReady).once('error', onError).once('exit', onExit);
    });
    ready.catch(() => {}); // whoever waits on it sees the failure
    return { thread, ready };
  };

  const stop = (thread: Worker) => {
    if (worker?.thread === thread) worker = undefined;
    void thread.terminate();
  };

  const run = async (job: Job) => {
    worker ??= start();
    const { thread, ready } = worker;
    thread.ref();
    try {
      await ready;
    } catch (error) {
      stop(thread);
      throw error;
    }
    const id = nextId++;
    return new Promise<AuthorizationModel>((resolve, reject) => {
      const settle = (then: () => void) => {
        clearTimeout(timer);
        thread.off('message', onMessage).off('error', onError).off('exit', onExit);
        thread.unref();
        then();
      };
      const onMessage = (reply: DslReply) => {
        if (reply.id !== id) return;
        settle(() => {
          if ('model' in reply) return resolve(reply.model);
          const { code, message, position } = reply.error;
          reject(code ? new FgaError(code, message, position) : new Error(message));
        });
      };
      const onError = (error: Error) => settle(() => (stop(thread), reject(error)));
      const onExit = () => settle(() => (stop(thread), reject(new Error('The DSL parser stopped.'))));
      const timer = setTimeout(
        () =>
          settle(() => {
            stop(thread);
            reject(
              new FgaError(
                'invalid_authorization_model',
                `The model's DSL took longer than ${job.timeoutMs} ms to parse; send a smaller model, or its JSON form.`,
              ),
            );
          }),
        job.timeoutMs,
      );
      thread.on('message', onMessage).on('error', onError).on('exit', onExit);
      thread.postMessage({ id, dsl: job.dsl } satisfies DslRequest);
    });
  };

  const next = () => {
    if (busy || closed) return;
    const job = queue.shift();
    if (!job) return;
    busy = true;
    run(job)
      .then(job.resolve, job.reject)
      .finally(() => {
        busy = false;
        next();
      });
  };

  return {
    parse: (dsl, timeoutMs = defaultTimeoutMs) => {
      // Checked here as parseModelDsl would, so an oversized model is never copied to the worker.
      if (dsl.length > MODEL_LIMITS.modelBytes) {
        return Promise.reject(new FgaError('invalid_authorization_model', `A model is at most ${MODEL_LIMITS.modelBytes / 1024} KiB.`));
      }
      if (closed) return Promise.reject(new Error('The DSL parser is closed.'));
      return new Promise((resolve, reject) => {
        queue.push({ dsl, timeoutMs, resolve, reject });
        next();
      });
    },
    close: async () => {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('The DSL parser is closed.'));
      // A parse under way fails by the worker's exit.
      const thread = worker?.thread;
      worker = undefined;
      await thread?.terminate();
    },
  };
}
