import path from 'node:path';
import tseslint from 'typescript-eslint';

// The layers and what each may import (docs/architecture.md). A relative import that reaches a forbidden layer fails `npm test`.
const layer = (name) => [`**/${name}/**`, `../${name}`, `../../${name}`];
const forbid = (layers, message, options = {}) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: layers.flatMap(layer), message, ...options }] }],
});

// Which families a family may import (docs/architecture.md "Families"). A family (api/families/<area>/<family>/) may
// import its own folder, everything outside api/families (api/access, api/common, api/plugins, api/errors.ts…) and
// only the families listed here; anything shared by several families belongs in one of those layers instead.
export const FAMILY_IMPORTS = {
  'access/access-page': ['access/elevate'],
  'access/api-secrets': ['projects/environment-settings'],
  'access/elevate': ['access/rbac'],
  'access/impersonation': ['identity/oauth', 'projects/environment-settings'],
  'directory/groups': ['directory/users'],
  'directory/sessions': ['projects/environment-settings'],
  'directory/users': ['projects/environment-settings'],
  'events/notification-channels': ['events/webhooks', 'tenants/tenants'],
  'events/webhooks': ['tenants/tenants'],
  'oidc/client-allowlist': ['projects/environment-settings'],
  'oidc/clients': ['projects/environment-settings', 'projects/environments'],
  'oidc/connected-apps': ['projects/environment-settings'],
  'oidc/settings': ['projects/environment-settings'],
  'oidc/sign-in': ['directory/users', 'projects/environment-settings'],
  'oidc/sign-in-settings': ['projects/environment-settings'],
  'organizations/invitations': ['organizations/organizations'],
  'organizations/admin-portal': [
    'events/audit-logs',
    'events/webhooks',
    'oidc/clients',
    'projects/environment-settings',
    'provisioning/provisioning-tokens',
    'tenants/domains',
  ],
  'organizations/members': ['organizations/organizations'],
  'organizations/organizations': ['organizations/members'],
  'organizations/tenant-links': ['organizations/organizations', 'tenants/tenants'],
  'projects/environment-settings': ['projects/environments'],
  'projects/environments': ['projects/projects'],
  'projects/projects': ['projects/environments', 'tenants/tenants'],
  'provisioning/hris': ['provisioning/scim'],
  'provisioning/provisioning-tokens': ['access/api-secrets', 'projects/environment-settings'],
  'provisioning/scim': ['directory/users'],
  'tenants/domains': ['tenants/tenants'],
  'tenants/seats': ['tenants/tenants'],
  'threats/threats': ['projects/environment-settings'],
  'widgets/widgets': [
    'directory/users',
    'directory/sessions',
    'directory/passkeys',
    'directory/mfa-factors',
    'organizations/invitations',
    'organizations/members',
    'organizations/organizations',
    'identity/personal-access-tokens',
    'events/audit-logs',
    'projects/environment-settings',
  ],
};

const FAMILIES_DIR = path.join(import.meta.dirname, 'api', 'families');

/** `<area>/<family>` of a file under api/families (an area-level file counts as a family named after its area), or null. */
function familyOf(file) {
  const parts = path.relative(FAMILIES_DIR, file).split(path.sep);
  if (parts[0] === '..' || path.isAbsolute(parts[0]) || parts.length < 2) return null;
  return parts.length === 2 ? parts[0] : `${parts[0]}/${parts[1]}`;
}

const familyImports = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      forbidden:
        '{{from}} may not import the family {{to}}: a family imports its own folder, api/access, api/common, api/plugins and the families FAMILY_IMPORTS (eslint.config.js) lists for it; move shared code to one of those layers.',
    },
  },
  create(context) {
    const from = familyOf(context.filename);
    if (!from) return {};
    const check = (source) => {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const to = familyOf(path.resolve(path.dirname(context.filename), source.value));
      if (to && to !== from && !(FAMILY_IMPORTS[from] ?? []).includes(to)) context.report({ node: source, messageId: 'forbidden', data: { from, to } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', '.temporal/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'lib/webhook-signature.js', 'api/families/widgets/widgets/client/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  { files: ['api/families/**'], plugins: { families: { rules: { imports: familyImports } } }, rules: { 'families/imports': 'error' } },
  { files: ['lib/**'], rules: forbid(['api', 'db', 'activities', 'worker', 'workflows'], 'lib/ is the leaf layer: it imports nothing of ours.') },
  {
    // db/ never imports workflows/: the process contracts it types the outbox with live in lib/processes/.
    files: ['db/**'],
    rules: forbid(['api', 'activities', 'worker', 'workflows'], 'db/ may import lib/ only (process contracts: lib/processes/).'),
  },
  {
    // The process contracts are bundled into the workflows: pure types and constants, no Node built-ins.
    files: ['lib/processes/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'dns', 'os', 'child_process'],
              message: 'lib/processes/ is bundled into the workflows: pure.',
            },
            { group: ['api', 'db', 'activities', 'worker', 'workflows'].flatMap(layer), message: 'lib/ is the leaf layer: it imports nothing of ours.' },
            { group: ['../*', '!../processes'], message: 'lib/processes/ is bundled into the workflows: it imports only lib/processes/ files.' },
          ],
        },
      ],
    },
  },
  {
    files: ['api/**'],
    ignores: ['api/server.ts'],
    rules: forbid(['activities', 'worker'], 'api/ reaches processes through the ProcessGateway type only; shared rules belong in db/ or lib/.'),
  },
  {
    files: ['activities/**'],
    rules: forbid(['api', 'worker', 'workflows'], 'activities/ may import lib/ and db/ (and workflow types).', { allowTypeImports: true }),
  },
  { files: ['worker/**'], rules: forbid(['api'], 'worker/ may import everything but api/.') },
  {
    // Process logic must stay deterministic and engine-neutral: no Node built-ins, no I/O, nothing outside workflows/
    // but the pure process contracts (lib/processes/).
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'dns', 'os', 'child_process'], message: 'workflows/ must stay deterministic.' },
            {
              // Temporal's OpenTelemetry workflow interceptors are made for the sandbox (workflows/tracing-interceptors.ts).
              group: [
                ...['api', 'db', 'activities', 'worker'].flatMap(layer),
                '**/lib/*',
                '!**/lib/processes',
                '!@temporalio/interceptors-opentelemetry/lib/workflow',
              ],
              message: 'workflows/ imports only other workflows/ files and lib/processes/.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'setTimeout', 'setInterval', 'fetch'],
    },
  },
);
