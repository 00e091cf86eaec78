// The baselines: the engine's events built, signed (buildWebhookRequest, a fresh delivery id each time) and
// POSTed with undici to the same receiver, over and over, with no database and no process engine.
//   sequential: "a bare loop": one loop, one request at a time (the figure the target is judged against);
//   concurrent: the same with `concurrency` workers sharing the events (for information).
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { buildWebhookRequest, type WebhookEvent } from '../../lib/webhook-request.ts';
import type { Receiver } from './receiver.ts';
import { cpuMeter, round, type CpuUsage } from './util.ts';

export interface BaselineRun extends CpuUsage {
  concurrency: number;
  delivered: number;
  sockets: number;
  elapsedMs: number;
  rate: number;
}

/** `concurrency` workers POSTing for `seconds`; rate = requests answered / elapsed. */
async function postLoop(receiver: Receiver, route: string, events: WebhookEvent[], secret: string, concurrency: number, seconds: number): Promise<BaselineRun> {
  const url = `${receiver.url}${route}`;
  let next = 0;
  let failures = 0;
  const meter = cpuMeter();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const event = events[next++ % events.length]!;
        const { body, headers } = buildWebhookRequest(event, randomUUID(), [secret]);
        const res = await request(url, { method: 'POST', body, headers });
        await res.body.text();
        if (res.statusCode !== 200) failures++;
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  const usage = meter();
  if (failures || receiver.requests(route) !== next) throw new Error(`baseline: ${failures} failures, ${receiver.requests(route)}/${next} arrived`);
  return { concurrency, delivered: next, sockets: receiver.sockets(route), elapsedMs: Math.round(elapsedMs), rate: round((next / elapsedMs) * 1000), ...usage };
}

/** The loop over the engine's events for `seconds`, after a 1 s warm-up (JIT, connections). */
export async function baseline(receiver: Receiver, events: WebhookEvent[], secret: string, concurrency: number, seconds: number) {
  const route = concurrency === 1 ? '/baseline/sequential' : `/baseline/${concurrency}`;
  await postLoop(receiver, `${route}/warm`, events, secret, concurrency, 1);
  return postLoop(receiver, route, events, secret, concurrency, seconds);
}
