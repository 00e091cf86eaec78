import tseslint from 'typescript-eslint';

// The layers and what each may import (docs/architecture.md). A relative import that reaches a forbidden layer fails `npm test`.
const layer = (name) => [`**/${name}/**`, `../${name}`, `../../${name}`];
const forbid = (layers, message, options = {}) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: layers.flatMap(layer), message, ...options }] }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', '.temporal/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js', 'lib/webhook-signature.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
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
              group: [...['api', 'db', 'activities', 'worker'].flatMap(layer), '**/lib/*', '!**/lib/processes'],
              message: 'workflows/ imports only other workflows/ files and lib/processes/.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'setTimeout', 'setInterval', 'fetch'],
    },
  },
);
