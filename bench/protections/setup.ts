// The service side of bench:protections: the real app listening on a free port (PUBLIC_BASE_URL its own address,
// TRUST_PROXY its own address so each virtual attempt brings its client IP address), the pipeline's timings wired in,
// and two environments alike but for their protection policies: `on` saves all six, `off` none. Each has a public
// OIDC client (code + PKCE) and `users` directory users sharing one password (hashed once: the figures are about
// signing in, not signing up).
import { sql } from 'slonik';
import { hashPassword } from '../../lib/passwords.ts';
import type { EvaluationTimings } from '../../api/protections/pipeline.ts';
import { startBenchApp } from '../app.ts';
import { REDIRECT_URI } from '../oidc/setup.ts';
import { authorizeUrl } from '../sign-in/pages.ts';
import { freePort } from '../../db/embedded.ts';

export const PASSWORD = 'correct horse battery staple';

/** All six policies on: brute force counting but not locking, rate limit not denying, bot detection silent. */
export const ALL_ON: Record<string, Record<string, unknown>> = {
  'brute-force-policy': { enabled: true, maxFailures: 100, lockoutMinutes: 1, progressiveDelay: false },
  'rate-limit-policy': { enabled: true, windowSeconds: 60, maxAttempts: 100_000, scope: 'ip_user', action: 'deny' },
  'bot-detection-policy': { enabled: true, sensitivity: 'medium', challengeMode: 'silent' },
  'device-risk-policy': { challengeUnrecognized: true, impossibleTravel: 'normal' },
  restrictions: {
    signupMode: 'open',
    blocklistEnabled: true,
    blocklistDomains: 'blocked.example, spam.example, mailinator.com',
    applyToSignins: true,
    blockEmailSubaddresses: true,
    blockDisposableEmails: true,
  },
  'breached-password-policy': { enabled: true, mode: 'block' },
};

export async function startProtectionsBench(databaseUrl: string, timings: EvaluationTimings, users: number) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await startBenchApp(databaseUrl, { PUBLIC_BASE_URL: baseUrl, TRUST_PROXY: '127.0.0.1' }, undefined, { protectionTimings: timings });
  await service.app.listen({ port, host: '127.0.0.1' });
  const token = await service.token();
  const { tenantId } = service.credentials;
  const api = async (method: 'POST' | 'PUT', url: string, payload: object) => {
    const res = await service.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown>;
  };
  const hash = await hashPassword(PASSWORD);

  const environment = async (name: 'on' | 'off') => {
    const project = (await api('POST', `/v1/tenants/${tenantId}/projects`, { name: `bench:protections ${name}` })) as { environments: { id: string }[] };
    const environmentId = project.environments[0]!.id;
    const clientId = `bench-${name}-${crypto.randomUUID()}`;
    await service.pool.query(sql.unsafe`
      INSERT INTO oidc_clients (environment_id, client_id, name, redirect_uris, grant_types, scopes, token_endpoint_auth_method, pkce_required)
      VALUES (${environmentId}, ${clientId}, 'bench:protections', ${sql.array([REDIRECT_URI], 'text')}, ${sql.array(['authorization_code'], 'text')},
        ${sql.array(['openid', 'profile', 'email'], 'text')}, 'none', true)`);
    const identifiers = Array.from({ length: users }, (_, i) => `user-${i}@bench.example.com`);
    await service.pool.query(sql.unsafe`
      WITH u AS (
        INSERT INTO users (environment_id, user_name, display_name, emails)
        SELECT ${environmentId}, login, 'Bench', jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'value', login, 'type', 'work'))
        FROM unnest(${sql.array(identifiers, 'text')}::text[]) AS login
        RETURNING id)
      INSERT INTO user_passwords (user_id, environment_id, hash) SELECT id, ${environmentId}, ${hash} FROM u`);
    if (name === 'on') {
      for (const [segment, settings] of Object.entries(ALL_ON)) {
        await api('PUT', `/v1/tenants/${tenantId}/environments/${environmentId}/settings/${segment}`, settings);
      }
    }
    return { environmentId, identifiers, authorizeUrl: authorizeUrl(`${baseUrl}/v1/oidc/${environmentId}`, clientId) };
  };

  return { service, on: await environment('on'), off: await environment('off') };
}
