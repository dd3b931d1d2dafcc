/**
 * The nightshift package this code runs from: its folder and its version.
 * Rules, scenarios, web pages and the PTY host's entry point are found
 * from it, whether this file runs from src/ (tests), dist/src/ (a clone)
 * or an installed copy under some node_modules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Package {
  readonly root: string;
  readonly version: string;
}

let found: Package | undefined;

/** Looked up once: the CLI and the daemon ask on start, never on a hot path. */
function ownPackage(): Package {
  if (found) return found;
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      // A package.json of another name (a workspace, a test fixture) is not ours: keep looking up.
      if (pkg.name === 'nightshift' && typeof pkg.version === 'string') return (found = { root: dir, version: pkg.version });
    }
    if (dirname(dir) === dir) throw new Error(`cannot find the nightshift package above ${here}`);
  }
}

/** The package's folder: the one with bin/, dist/, rules/, scenarios/ and web/. */
export function packageRoot(): string {
  return ownPackage().root;
}

/** A file or folder of the package, by its path inside it. */
export function packagePath(...parts: string[]): string {
  return join(ownPackage().root, ...parts);
}

/** The version in the package's own package.json. */
export function packageVersion(): string {
  return ownPackage().version;
}
