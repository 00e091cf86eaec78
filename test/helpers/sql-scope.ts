// Static check that every SQL statement under db/ names the scope of the rows it reads or changes. A table with an
// `environment_id`, `tenant_id` or `organization_id` column (the narrowest it has NOT NULL; a table whose scope
// columns are all nullable, as the event stream's, by any of them) is scoped; a statement that reads, updates or deletes it must mention that column, or sit in a function whose leading
// comment says `unscoped: <why>` (a process acting on the row it owns, a credential looked up by its hash…).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SCOPE_COLUMNS = ['environment_id', 'tenant_id', 'organization_id'] as const;

export interface ScopeViolation {
  file: string;
  line: number;
  fn: string;
  tables: string[];
  statement: string;
}

/** Each table with a scope column, and the columns of which a statement must name one. */
export function scopedTables(root: string): Map<string, string[]> {
  const columns = new Map<string, Set<string>>();
  const required = new Map<string, Set<string>>();
  const dir = path.join(root, 'db/migrations');
  for (const file of fs.readdirSync(dir).sort()) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(?:public\.)?(\w+)\s*\(([\s\S]*?)\n\);/gi)) {
      const set = columns.get(m[1]!.toLowerCase()) ?? new Set<string>();
      const notNull = new Set<string>();
      for (const c of SCOPE_COLUMNS) {
        const line = new RegExp(`^\\s*${c}\\s[^\\n]*`, 'mi').exec(m[2]!)?.[0];
        if (line) set.add(c);
        if (line && /NOT NULL|PRIMARY KEY/i.test(line)) notNull.add(c);
      }
      columns.set(m[1]!.toLowerCase(), set);
      required.set(m[1]!.toLowerCase(), notNull);
    }
    for (const m of text.matchAll(/ALTER TABLE (?:IF EXISTS )?(\w+)\s+ADD COLUMN (?:IF NOT EXISTS )?(environment_id|tenant_id|organization_id)\b/gi)) {
      const set = columns.get(m[1]!.toLowerCase()) ?? new Set<string>();
      set.add(m[2]!);
      columns.set(m[1]!.toLowerCase(), set);
    }
  }
  const scoped = new Map<string, string[]>();
  for (const [table, set] of columns) {
    const notNull = SCOPE_COLUMNS.find((c) => required.get(table)?.has(c));
    const any = SCOPE_COLUMNS.filter((c) => set.has(c));
    if (notNull || any.length > 0) scoped.set(table, notNull ? [notNull] : any);
  }
  return scoped;
}

function templateText(node: ts.TemplateLiteral, src: ts.SourceFile): string {
  if (ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return [node.head.text, ...node.templateSpans.map((s) => `\${${s.expression.getText(src)}}${s.literal.text}`)].join('');
}

/** The enclosing named function or property, and whether its leading comment says `unscoped:`. */
function owner(node: ts.Node, src: ts.SourceFile): { name: string; unscoped: boolean } {
  let name = '';
  let unscoped = false;
  for (let n: ts.Node | undefined = node; n && !ts.isSourceFile(n); n = n.parent) {
    const comments = ts.getLeadingCommentRanges(src.text, n.getFullStart()) ?? [];
    if (comments.some((c) => /\bunscoped:\s*\S/.test(src.text.slice(c.pos, c.end)))) unscoped = true;
    if (!name && (ts.isPropertyAssignment(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isVariableDeclaration(n))) {
      name = n.name?.getText(src) ?? '';
    }
  }
  return { name: name || '<module>', unscoped };
}

/** The statements of `db/**\/*.ts` that touch a scoped table without naming its scope column or saying why not. */
export function unscopedStatements(root: string): ScopeViolation[] {
  const scoped = scopedTables(root);
  const files = fs
    .readdirSync(path.join(root, 'db'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join('db', f));
  const violations: ScopeViolation[] = [];
  for (const file of files) {
    const src = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isTaggedTemplateExpression(node) && /^sql\.(type|unsafe)\b/.test(node.tag.getText(src))) {
        const text = templateText(node.template, src).replace(/\s+/g, ' ');
        const tables = new Set<string>();
        for (const m of text.matchAll(/\b(?:FROM|JOIN|UPDATE|DELETE FROM)\s+(\w+)/gi)) tables.add(m[1]!.toLowerCase());
        const missing = [...tables].filter((t) => scoped.has(t) && !scoped.get(t)!.some((c) => text.includes(c)));
        if (missing.length > 0) {
          const { name, unscoped } = owner(node, src);
          if (!unscoped) {
            const line = src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1;
            violations.push({ file, line, fn: name, tables: missing.map((t) => `${t}.${scoped.get(t)!.join('|')}`), statement: text.trim().slice(0, 160) });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  return violations;
}
