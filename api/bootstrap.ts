// First start: a default organization, tenant, project and environment, a service account holding `*`
// and an operator user with a personal access token. The credentials go to DATA_DIR/bootstrap.json (0600).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DatabasePool } from 'slonik';
import type { Config } from '../lib/config.ts';
import { displayPrefix, generateCredential, hashSecret } from '../lib/crypto.ts';
import type { EventOf } from '../db/event-catalog.ts';
import { recordChange, type Actor } from '../db/shared/changes.ts';
import { createOrganizationQueries } from '../db/organizations/organizations/queries.ts';
import { createPersonalAccessTokenQueries } from '../db/identity/personal-access-tokens/queries.ts';
import { createProjectQueries } from '../db/projects/projects/queries.ts';
import { createServiceAccountQueries } from '../db/identity/service-accounts/queries.ts';
import { createServiceStateQueries } from '../db/shared/service-state.ts';
import { createTenantQueries } from '../db/tenants/tenants/queries.ts';
import { createUserQueries } from '../db/identity/users/queries.ts';

export interface BootstrapCredentials {
  clientId: string;
  clientSecret: string;
  personalAccessToken: string;
  organizationId: string;
  tenantId: string;
  projectId: string;
  environmentId: string;
  userId: string;
  tokenUrl: string;
}

const SYSTEM: Actor = { type: 'system', id: 'bootstrap' };

/** Creates the bootstrap resources once; returns the path of the credentials file, or null when an earlier start did it. */
export async function bootstrap(pool: DatabasePool, config: Config): Promise<{ file: string; created: boolean }> {
  const file = path.join(config.dataDir, 'bootstrap.json');
  const pending = `${file}.pending`;
  await fs.mkdir(config.dataDir, { recursive: true });
  // The file is written before the commit and renamed after it, so a crash in between loses no secret.
  if (existsSync(pending)) await fs.rename(pending, file).catch(() => {});

  const created = await pool
    .transaction(async (trx) => {
      const state = createServiceStateQueries(trx);
      await state.lock('bootstrap');
      if (await state.has('bootstrap')) return false;

      const organizationId = await createOrganizationQueries(trx).insertOrganization({ name: 'Default organization' });
      const tenant = await createTenantQueries(trx).insertTenant({ name: 'Default', description: 'Created on first start', company: null }, organizationId);
      const projects = createProjectQueries(trx, tenant.id);
      const projectId = await projects.insertProject({ name: 'Console', type: 'web', description: 'Operators of this service' });
      const environmentId = await projects.insertEnvironment({ projectId, name: 'production', isLive: true });
      await projects.setDefaultEnvironment(projectId, environmentId);

      const clientSecret = config.bootstrap.clientSecret ?? generateCredential('adsa');
      const sa = await createServiceAccountQueries(trx).insertServiceAccount({
        organizationId,
        clientId: config.bootstrap.clientId ?? 'bootstrap-admin',
        name: 'Bootstrap administrator',
        description: 'Created on first start; holds every scope',
        secretHash: hashSecret(clientSecret),
        secretPrefix: displayPrefix(clientSecret),
        scopes: ['*'],
      });
      const user = await createUserQueries(trx).insertVerifiedUser({
        environmentId,
        userName: config.bootstrap.adminEmail,
        displayName: 'Administrator',
        email: config.bootstrap.adminEmail,
        managementScopes: ['*'],
      });
      await createOrganizationQueries(trx).insertMember({ organizationId, userId: user.id, role: 'owner' });
      const personalAccessToken = generateCredential('adpat');
      const pat = await createPersonalAccessTokenQueries(trx).insertPersonalAccessToken({
        userId: user.id,
        environmentId,
        name: 'Bootstrap',
        slug: 'bootstrap',
        prefix: displayPrefix(personalAccessToken),
        tokenHash: hashSecret(personalAccessToken),
        scopes: ['*'],
        expiresAt: null,
      });

      const scope = { organizationId, tenantId: tenant.id };
      const changes: { type: string; id: string; event: EventOf }[] = [
        {
          type: 'organization',
          id: organizationId,
          event: { type: 'organization.created', data: { organization: { id: organizationId, name: 'Default organization' } } },
        },
        { type: 'tenant', id: tenant.id, event: { type: 'tenant.created', data: { tenant } } },
        { type: 'project', id: projectId, event: { type: 'project.created', data: { project: { id: projectId, name: 'Console', type: 'web' } } } },
        {
          type: 'environment',
          id: environmentId,
          event: { type: 'environment.created', data: { environment: { id: environmentId, projectId, name: 'production' } } },
        },
        { type: 'service_account', id: sa.id, event: { type: 'service_account.created', data: { serviceAccount: sa } } },
        { type: 'user', id: user.id, event: { type: 'user.created', data: { user: { id: user.id, userName: user.userName } } } },
        { type: 'personal_access_token', id: pat.id, event: { type: 'personal_access_token.created', data: { token: pat } } },
      ];
      for (const c of changes) {
        await recordChange(trx, {
          actor: SYSTEM,
          action: c.event.type.replace(/created$/, 'create'),
          resource: { type: c.type, id: c.id },
          scope:
            c.type === 'organization'
              ? { organizationId }
              : { ...scope, environmentId: ['user', 'personal_access_token'].includes(c.type) ? environmentId : null },
          after: c.event.data,
          event: c.event,
        });
      }
      await state.put('bootstrap', { organizationId, tenantId: tenant.id, projectId, environmentId, serviceAccountId: sa.id, userId: user.id });

      const credentials: BootstrapCredentials = {
        clientId: sa.clientId,
        clientSecret,
        personalAccessToken,
        organizationId,
        tenantId: tenant.id,
        projectId,
        environmentId,
        userId: user.id,
        tokenUrl: `${config.publicBaseUrl}/v1/oauth/token`,
      };
      await fs.writeFile(pending, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
      return true;
    })
    .catch(async (error: unknown) => {
      await fs.rm(pending, { force: true });
      throw error;
    });
  if (created) await fs.rename(pending, file);
  return { file, created };
}
