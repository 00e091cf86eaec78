// The tenant of an environment, for the public pages of its OpenID provider (sign-in, password links), which
// address the environment by the id in their URL and have no caller whose scope could name it.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Tenant = z.object({ tenantId: z.uuid() });

// unscoped: a public page names its environment in its URL (the issuer); this resolves the tenant it belongs to.
export const tenantOfEnvironment = (db: CommonQueryMethods, environmentId: string) =>
  db.maybeOneFirst(sql.type(Tenant)`SELECT tenant_id AS "tenantId" FROM environments WHERE id = ${environmentId}`);
