// The fenced code blocks of the Markdown docs, for the walkthrough test.
import fs from 'node:fs/promises';
import path from 'node:path';

const SHELL_FENCES = new Set(['bash', 'shell', 'zsh', 'shell-session', 'sh-session']);

/** `README.md` and every Markdown file under `docs/`, relative to the repository root. */
export async function docFiles(root: string): Promise<string[]> {
  const docs = (await fs.readdir(path.join(root, 'docs'), { recursive: true })).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  return ['README.md', ...docs.sort()];
}

/** The ```sh blocks (walkthroughs, run in order) and the info strings of other shell fences (refused). */
export function shellBlocks(markdown: string): { run: string[]; others: string[] } {
  const run: string[] = [];
  const others: string[] = [];
  for (const match of markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```\s*$/gm)) {
    const info = match[1]!.trim().split(/\s+/)[0] ?? '';
    if (info === 'sh') run.push(match[2]!);
    else if (SHELL_FENCES.has(info)) others.push(info);
  }
  return { run, others };
}
