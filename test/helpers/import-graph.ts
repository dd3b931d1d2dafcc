import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import edge between two src files, paths relative to src/ with their .ts name. */
export interface ImportEdge {
  from: string;
  to: string;
  spec: string;
}

// Static `import … from`, `export … from`, side-effect `import '…'` and dynamic/type `import('…')`.
// `import type` counts like any other import: a type still ties the two files' meaning together.
const IMPORT = /\b(?:import|export)\s[^;'"`]*?\bfrom\s*'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|^\s*import\s+'([^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
}

/** Every relative import between src files (node: and package imports leave src and are not edges). */
export function importEdges(srcDir: string): { files: string[]; edges: ImportEdge[] } {
  const paths = sourceFiles(srcDir);
  const edges: ImportEdge[] = [];
  for (const path of paths) {
    for (const m of withoutComments(readFileSync(path, 'utf8')).matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? '';
      if (!spec.startsWith('.')) continue;
      const to = relative(srcDir, resolve(dirname(path), spec)).replace(/\.js$/, '.ts');
      edges.push({ from: relative(srcDir, path), to, spec });
    }
  }
  return { files: paths.map((p) => relative(srcDir, p)), edges };
}

/** The folder directly under src/ a file lives in (a file at src/ root is its own folder). */
export function folderOf(file: string): string {
  return (file.split('/')[0] ?? file).replace(/\.ts$/, '');
}

/** Strongly connected components with more than one member, or a member importing itself (Tarjan). */
export function circles(nodes: string[], edges: ReadonlyArray<readonly [string, string]>): string[][] {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const [a, b] of edges) next.get(a)?.push(b);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || next.get(v)!.includes(v)) found.push(scc.sort());
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}
