// Which families may import which is stated once (FAMILY_IMPORTS in eslint.config.js) and enforced by eslint: a
// family imports its own folder, the layers outside api/families, and the families listed for it.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function familyImports(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'families/imports').map((m) => m.message);
}

// The first lint of a file starts the TypeScript project service: slow on a busy machine.
describe('family import rules', { timeout: 120_000 }, () => {
  it.each([
    ['api/families/mcp/trust-store/keys-service.ts', "import { found } from '../../access/rbac/checks.ts';\nexport const x = found;\n", 'access/rbac'],
    ['api/families/threats/threats/service.ts', "export { decideRequest } from '../../access/elevate/decide.ts';\n", 'access/elevate'],
    [
      'api/families/tenants/seats/routes.ts',
      "import type { SigningKeyService } from '../../identity/signing-keys/service.ts';\nexport type X = SigningKeyService;\n",
      'identity/signing-keys',
    ],
    ['api/families/directory/users/service.ts', "export const x = () => import('../groups/service.ts');\n", 'directory/groups'],
    ['api/families/access/rbac/checks.ts', "import { x } from '../../directory/area-helper.ts';\nexport const y = x;\n", 'directory'],
  ])('%s may not import what line 1 imports', async (file, code, family) => {
    const from = file.split('/').slice(2, 4).join('/');
    expect(await familyImports(file, code)).toEqual([
      `${from} may not import the family ${family}: a family imports its own folder, api/access, api/common, api/plugins and the families FAMILY_IMPORTS (eslint.config.js) lists for it; move shared code to one of those layers.`,
    ]);
  });

  it.each([
    ['api/families/directory/groups/service.ts', "import { x } from '../users/service.ts';\nexport const y = x;\n"],
    ['api/families/access/elevate/decide.ts', "import { x } from '../rbac/checks.ts';\nexport const y = x;\n"],
    ['api/families/identity/oauth/service.ts', "import { x } from './routes.ts';\nimport { y } from '../../../access/caller.ts';\nexport const z = [x, y];\n"],
    ['api/families/tenants/seats/schemas.ts', "import { ScopeList } from '../../../common/credentials.ts';\nexport const x = ScopeList;\n"],
    ['api/families/index.ts', "import x from './tenants/tenants/index.ts';\nexport const y = x;\n"],
    ['api/app.ts', "import x from './families/identity/signing-keys/index.ts';\nexport const y = x;\n"],
  ])('%s may import what line 1 imports', async (file, code) => {
    expect(await familyImports(file, code)).toEqual([]);
  });
});
