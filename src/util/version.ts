/** This nightshift's version: the one its own package.json says, so an installed copy reports what was installed. */
import { readFileSync } from 'node:fs';

// From dist/src/util/ (the built CLI) and from src/util/ (tests run on the sources) alike.
const CANDIDATES = ['../../../package.json', '../../package.json'];

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= readVersion();
  return cached;
}

function readVersion(): string {
  for (const rel of CANDIDATES) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'nightshift' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      /* not this one */
    }
  }
  return 'unknown';
}
