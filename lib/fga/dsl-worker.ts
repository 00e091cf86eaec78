// The worker thread that parses models written in OpenFGA's DSL (./dsl-parser.ts starts it): the syntax
// transformer's ANTLR parser takes tens of milliseconds on a small model, which the API's event loop must not stall.
import { parentPort } from 'node:worker_threads';
import { parseModelDsl } from './model.ts';
import { FgaError } from './types.ts';
import type { DslReply, DslRequest } from './dsl-parser.ts';

parentPort!.on('message', async ({ id, dsl }: DslRequest) => {
  let reply: DslReply;
  try {
    reply = { id, model: await parseModelDsl(dsl) };
  } catch (error) {
    reply =
      error instanceof FgaError
        ? { id, error: { code: error.code, message: error.message, position: error.position } }
        : { id, error: { message: error instanceof Error ? error.message : String(error) } };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
