import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'slonik';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { assembleApp } from '../../api/assemble.ts';
import { bootstrap } from '../../api/bootstrap.ts';
import { loadConfig } from '../../lib/config.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { bearer } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';

const count = (table: string) => sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM ${sql.identifier([table])}`;

describe('bootstrap', () => {
  it('creates the resources once even when two instances start together, and writes a 0600 credentials file', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-boot-'));
    const config = loadConfig({ DATA_DIR: dataDir, BOOTSTRAP_ADMIN_EMAIL: 'ops@example.com', BOOTSTRAP_CLIENT_ID: 'preset-client' });
    const databaseUrl = await createTestDatabase();
    const pool = await createDatabasePool(databaseUrl);
    let started: Awaited<ReturnType<typeof assembleApp>> | undefined;
    try {
      const results = await Promise.all([bootstrap(pool, config), bootstrap(pool, config)]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      const file = path.join(dataDir, 'bootstrap.json');
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const credentials = JSON.parse(await fs.readFile(file, 'utf8'));
      expect(Object.keys(credentials).sort()).toEqual([
        'clientId',
        'clientSecret',
        'environmentId',
        'organizationId',
        'personalAccessToken',
        'projectId',
        'tenantId',
        'tokenUrl',
        'userId',
      ]);
      expect(credentials).toMatchObject({
        clientId: 'preset-client',
        clientSecret: expect.stringMatching(/^adsa_/),
        personalAccessToken: expect.stringMatching(/^adpat_/),
        tokenUrl: 'http://127.0.0.1:8080/v1/oauth/token',
      });

      // A start after them (as the server's) finds everything there.
      started = await assembleApp(config, pool, databaseUrl);
      expect(started.bootstrap.created).toBe(false);
      for (const table of ['organizations', 'tenants', 'projects', 'environments', 'service_accounts', 'users', 'personal_access_tokens']) {
        expect(await pool.oneFirst(count(table))).toBe(1);
      }
      expect(await pool.oneFirst(sql.type(z.object({ u: z.string() }))`SELECT user_name AS u FROM users`)).toBe('ops@example.com');
      expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(credentials);
      const audit = await started.app.inject({
        method: 'GET',
        url: `/v1/organizations/${credentials.organizationId}/audit-logs?limit=200`,
        headers: bearer(credentials.personalAccessToken),
      });
      expect(audit.statusCode).toBe(200);
      expect(audit.json().auditLogs.map((a: { action: string }) => a.action)).toContain('service_account.create');
      expect(audit.body).not.toContain(credentials.clientSecret);
    } finally {
      await started?.app.close();
      await pool.end();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
