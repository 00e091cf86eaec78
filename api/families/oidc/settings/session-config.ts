// An environment's session config (SPEC: free-form). PUT replaces it, PATCH merges the keys given into it; either
// way the keys the provider reads are checked, and the idle lifetime may not exceed the absolute one (defaults
// counted). Reads answer the stored object with the defaults of the keys the service reads filled in.
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createOidcSettingsQueries, type StoredSessionConfig } from '../../../../db/oidc/settings/queries.ts';
import { effectiveSessionConfig } from '../../../../lib/oidc/session-config.ts';
import { invalidField } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { MAX_BYTES, MAX_KEYS, type SessionConfigBody } from './schemas.ts';

const view = (stored: StoredSessionConfig) => ({ config: { ...stored, ...effectiveSessionConfig(stored) } });

export function createSessionConfigService(pool: DatabasePool) {
  const save = (caller: EnvironmentCaller, given: SessionConfigBody, mode: 'replace' | 'merge') =>
    pool.transaction(async (trx) => {
      const { environmentId } = caller.scope;
      await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
      const settings = createOidcSettingsQueries(trx, environmentId);
      const previous = await settings.sessionConfig();
      const config: StoredSessionConfig = mode === 'replace' ? { ...given } : { ...previous, ...given };
      if (Object.keys(config).length > MAX_KEYS || Buffer.byteLength(JSON.stringify(config)) > MAX_BYTES)
        throw invalidField('body', `would make the config larger than ${MAX_KEYS} keys or 16 KiB as JSON`);
      const effective = effectiveSessionConfig(config);
      if (effective.idleLifetimeSeconds > effective.absoluteLifetimeSeconds) {
        const path = given.idleLifetimeSeconds === undefined ? 'body.absoluteLifetimeSeconds' : 'body.idleLifetimeSeconds';
        throw invalidField(
          path,
          `leaves idleLifetimeSeconds (${effective.idleLifetimeSeconds}) above absoluteLifetimeSeconds (${effective.absoluteLifetimeSeconds})`,
        );
      }
      await settings.saveSessionConfig(config);
      await record(trx, caller, {
        action: 'session_config.update',
        resource: { type: 'environment', id: environmentId },
        before: previous,
        after: config,
        event: { type: 'session_config.updated', data: { environmentId, config, previous } },
      });
      return view(config);
    });

  return {
    find: async (caller: EnvironmentCaller) => view(await createOidcSettingsQueries(pool, caller.scope.environmentId).sessionConfig()),
    replace: (caller: EnvironmentCaller, body: SessionConfigBody) => save(caller, body, 'replace'),
    merge: (caller: EnvironmentCaller, body: SessionConfigBody) => save(caller, body, 'merge'),
  };
}

export type SessionConfigService = ReturnType<typeof createSessionConfigService>;
