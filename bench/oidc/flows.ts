// (b) of bench:oidc: a directory user with an argon2id password (the library's default cost, the service's), one
// flow to check the pages answer as expected (else the part is skipped, saying why), then flows for `seconds`.
import { hash } from '@node-rs/argon2';
import { sql } from 'slonik';
import { createUserQueries } from '../../db/identity/users/queries.ts';
import type { startBenchApp } from '../app.ts';
import { authorizationCodeFlow, type FlowTarget } from './flow.ts';
import type { startFlowWorker } from './flow-worker.ts';
import { PASSWORD, REDIRECT_URI } from './setup.ts';

type Service = Awaited<ReturnType<typeof startBenchApp>>;

export async function runFlows(
  service: Service,
  issuer: string,
  client: { id: string; secret: string },
  worker: ReturnType<typeof startFlowWorker>,
  inFlight: number,
  seconds: number,
): Promise<{ perSecond: number; flows: number; errors: number; firstError?: string } | { skipped: string }> {
  const { environmentId } = service.credentials;
  const userName = `bench-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const user = await createUserQueries(service.pool).insertVerifiedUser({
    environmentId,
    userName,
    displayName: 'Bench',
    email: userName,
    managementScopes: [],
  });
  await service.pool.query(sql.unsafe`
    INSERT INTO user_passwords (user_id, environment_id, hash) VALUES (${user.id}, ${environmentId}, ${await hash(PASSWORD)})`);
  const target: FlowTarget = { issuer, client, redirectUri: REDIRECT_URI, userName, password: PASSWORD };
  try {
    await authorizationCodeFlow(target);
  } catch (error) {
    return { skipped: `one flow failed (${String(error).slice(0, 200)})` };
  }
  const result = await worker.run({ target, inFlight, seconds });
  if (result.errors > 0) console.log(`flows: ${result.errors} failed, the first: ${result.firstError}`);
  return result;
}
