// No import cycle among the service's own modules (api/, db/, lib/), type-only imports included: a cycle means two
// modules each need the other, so one of them holds code that belongs to a lower layer (docs/architecture.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LAYERS = ['api', 'db', 'lib'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Each file's relative imports (static, dynamic and re-exports), resolved to files of the graph. */
export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((i) => i.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => path.resolve(path.dirname(file), name))
        .filter((target) => known.has(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** Every cycle (as a path of files, first file repeated at the end), found by a depth-first search per strongly connected part. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

const relative = (cycle: string[]) => cycle.map((f) => path.relative(ROOT, f)).join(' → ');

describe('import cycles', () => {
  it('there is none among api/, db/ and lib/ files', () => {
    const graph = importGraph(LAYERS.flatMap((layer) => sourceFiles(path.join(ROOT, layer))));
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph).map(relative)).toEqual([]);
  });

  it('a cycle is found, type-only imports included', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['/a.ts', '/b.ts', '/c.ts', '/a.ts']]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
    try {
      fs.writeFileSync(path.join(dir, 'x.ts'), "import type { Y } from './y.ts';\nexport type X = Y;\n");
      fs.writeFileSync(path.join(dir, 'y.ts'), "import { x } from './x.ts';\nexport type Y = typeof x;\n");
      const found = cycles(importGraph(sourceFiles(dir)));
      expect(found.map((c) => c.map((f) => path.basename(f)))).toEqual([['x.ts', 'y.ts', 'x.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
