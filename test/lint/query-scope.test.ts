// Scope in every query: a statement that reads or changes rows of an environment, tenant or organization names that
// scope in its SQL (query factories are bound to it), or its function says why not with an `unscoped:` comment.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unscopedStatements } from '../helpers/sql-scope.ts';

const root = path.resolve(import.meta.dirname, '../..');

// Families whose queries are not yet bound to their scope, by `file#function`. The list only shrinks: an entry that
// no longer needs to be here fails the test, so it is removed when its family is converted.
const PENDING = new Set<string>([
  'db/directory/groups/queries.ts#deleteGroup',
  'db/directory/groups/queries.ts#insertGroup',
  'db/directory/groups/queries.ts#removeMember',
  'db/directory/groups/queries.ts#updateGroup',
  'db/directory/sync/queries.ts#finishDeprovisioning',
  'db/directory/sync/queries.ts#markApplied',
  'db/directory/sync/queries.ts#unschedule',
  'db/directory/users/queries.ts#deleteUser',
  'db/directory/users/queries.ts#rows',
  'db/directory/users/queries.ts#updateUser',
  'db/identity/personal-access-tokens/queries.ts#findPersonalAccessTokenByHash',
  'db/identity/personal-access-tokens/queries.ts#findPersonalAccessTokenOfUser',
  'db/identity/personal-access-tokens/queries.ts#revokePersonalAccessToken',
  'db/identity/personal-access-tokens/queries.ts#touchPersonalAccessToken',
  'db/identity/service-accounts/queries.ts#deleteServiceAccountById',
  'db/identity/service-accounts/queries.ts#findServiceAccountByClientId',
  'db/identity/service-accounts/queries.ts#findServiceAccountById',
  'db/identity/service-accounts/queries.ts#replaceServiceAccountSecret',
  'db/identity/service-accounts/queries.ts#touchServiceAccount',
  'db/identity/service-accounts/queries.ts#updateServiceAccountById',
  'db/identity/users/operators.ts#verifiedEmailsOf',
  'db/identity/users/queries.ts#findUserById',
  'db/organizations/invitations/queries.ts#expireIfDue',
  'db/organizations/invitations/queries.ts#lockInvitation',
  'db/organizations/invitations/queries.ts#markAccepted',
  'db/organizations/invitations/queries.ts#markRevoked',
  'db/organizations/invitations/queries.ts#replaceSecrets',
  'db/organizations/invitations/queries.ts#row',
  'db/organizations/members/queries.ts#deleteMember',
  'db/organizations/members/queries.ts#hasActiveMemberWithEmail',
  'db/organizations/members/queries.ts#setMemberActive',
  'db/organizations/organization-keys/queries.ts#one',
  'db/organizations/organization-keys/queries.ts#replaceKeyTenants',
  'db/organizations/organization-keys/queries.ts#revokeKey',
  'db/organizations/organization-keys/queries.ts#touchKey',
  'db/organizations/tenant-links/queries.ts#countTenantsOfOrganization',
  'db/provisioning/hris/departments.ts#ancestorsOf',
  'db/provisioning/hris/departments.ts#countChildren',
  'db/provisioning/hris/departments.ts#updateDepartment',
  'db/provisioning/hris/employees.ts#countInDepartment',
  'db/provisioning/hris/employees.ts#updateEmployee',
  'db/provisioning/provisioning-tokens/access.ts#touchToken',
  'db/provisioning/provisioning-tokens/queries.ts#byId',
  'db/provisioning/provisioning-tokens/queries.ts#delete',
  'db/provisioning/provisioning-tokens/queries.ts#revoke',
  'db/provisioning/provisioning-tokens/queries.ts#rotate',
  'db/provisioning/scim/groups.ts#[rows, total]',
  'db/provisioning/scim/groups.ts#touch',
  'db/provisioning/scim/users.ts#[rows, total]',
]);

describe('query scope', () => {
  const violations = unscopedStatements(root);
  const key = (v: { file: string; fn: string }) => `${v.file}#${v.fn}`;

  it('every statement on a scoped table names its scope or says why not', () => {
    const unexpected = violations.filter((v) => !PENDING.has(key(v))).map((v) => `${v.file}:${v.line} ${v.fn} [${v.tables.join(', ')}] ${v.statement}`);
    expect(unexpected).toEqual([]);
  });

  it('lists no pending function that is already scoped', () => {
    const still = new Set(violations.map(key));
    expect([...PENDING].filter((p) => !still.has(p))).toEqual([]);
  });

  it('catches a statement that forgets its scope', async () => {
    const { unscopedStatements: scan } = await import('../helpers/sql-scope.ts');
    const fixture = path.join(import.meta.dirname, '../fixtures/query-scope');
    expect(scan(fixture).map((v) => v.fn)).toEqual(['forgetsScope']);
  });
});
