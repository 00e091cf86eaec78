// The import rules of the layers (docs/architecture.md) are enforced by eslint: each forbidden import below must be reported.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function restrictedImports(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('layer import rules', () => {
  it.each([
    ['lib/crypto.ts', "import { createDatabasePool } from '../db/pool.ts';\nexport const x = createDatabasePool;\n"],
    ['db/pool.ts', "import { processes } from '../workflows/index.ts';\nexport const x = processes;\n"],
    ['api/app.ts', "import { createActivities } from '../activities/index.ts';\nexport const x = createActivities;\n"],
    ['api/families/tenants/tenants/service.ts', "import { createActivities } from '../../../../activities/index.ts';\nexport const x = createActivities;\n"],
    ['activities/index.ts', "import { buildApp } from '../api/app.ts';\nexport const x = buildApp;\n"],
    ['worker/index.ts', "import { buildApp } from '../api/app.ts';\nexport const x = buildApp;\n"],
    ['workflows/delivery.ts', "import { loadConfig } from '../lib/config.ts';\nexport const x = loadConfig;\n"],
    ['workflows/delivery.ts', "import fs from 'node:fs';\nexport const x = fs;\n"],
    // db/ never imports workflows/, not even types: the process contracts live in lib/processes/.
    ['db/processes/outbox.ts', "import type { ProcessKind } from '../../workflows/port.ts';\nexport type X = ProcessKind;\n"],
    // lib/processes/ is bundled into the workflows: it stays pure.
    ['lib/processes/contracts.ts', "import fs from 'node:fs';\nexport const x = fs;\n"],
    ['lib/processes/contracts.ts', "import { loadConfig } from '../config.ts';\nexport const x = loadConfig;\n"],
  ])('%s may not import what line 1 imports', async (file, code) => {
    expect(await restrictedImports(file, code)).toHaveLength(1);
  });

  it.each([
    ['api/app.ts', "import { createDatabasePool } from '../db/pool.ts';\nexport const x = createDatabasePool;\n"],
    ['api/server.ts', "import { startEmbeddedProcesses } from '../worker/embedded.ts';\nexport const x = startEmbeddedProcesses;\n"],
    ['activities/index.ts', "import type { Activities } from '../workflows/activities.ts';\nexport type X = Activities;\n"],
    ['db/pool.ts', "import { loadConfig } from '../lib/config.ts';\nexport const x = loadConfig;\n"],
    ['db/processes/outbox.ts', "import type { ProcessKind } from '../../lib/processes/contracts.ts';\nexport type X = ProcessKind;\n"],
    ['workflows/delivery.ts', "import type { ProcessKind } from '../lib/processes/contracts.ts';\nexport type X = ProcessKind;\n"],
  ])('%s may import what line 1 imports', async (file, code) => {
    expect(await restrictedImports(file, code)).toEqual([]);
  });
});
