// The configuration reference is generated from the schema's reference, documents every variable, and its
// defaults are the schema's own.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configSchema } from '../../lib/config.ts';
import { CONFIG_REFERENCE } from '../../lib/config-reference.ts';
import { REFERENCE_FILES, renderEnvExample, renderMarkdown } from '../../scripts/config-reference.ts';

const shape = (configSchema as unknown as { in: z.ZodObject }).in.shape as Record<string, z.ZodType>;

describe('configuration reference', () => {
  it('documents exactly the variables of the schema', () => {
    expect(Object.keys(CONFIG_REFERENCE).sort()).toEqual(Object.keys(shape).sort());
  });

  it.each(Object.entries(CONFIG_REFERENCE))('%s: the documented default is the schema default', (name, doc) => {
    const schema = shape[name]!;
    const unset = schema.safeParse(undefined);
    expect(unset.success).toBe(true);
    if (doc.default === null) expect(unset.data).toBeUndefined();
    else expect(schema.parse(doc.default)).toEqual(unset.data);
  });

  it('docs/configuration.md and .env.example are what `npm run docs:config` writes', () => {
    expect(fs.readFileSync(REFERENCE_FILES.markdown, 'utf8'), 'run npm run docs:config').toBe(renderMarkdown());
    expect(fs.readFileSync(REFERENCE_FILES.envExample, 'utf8'), 'run npm run docs:config').toBe(renderEnvExample());
  });
});
