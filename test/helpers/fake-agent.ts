/** A stand-in agent on PATH for tests of the agent-version check (src/adapters/agent-version.ts). */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';

/** A `claude` that answers --version like Claude Code 2.9.0 would, and otherwise waits for a line. */
export function fakeClaude(): string {
  return fakeAgent('claude', '2.9.0 (Claude Code)');
}

/** A program `name` on PATH that answers --version with `version`, and otherwise waits for a line; returns its folder. */
export function fakeAgent(name: string, version: string): string {
  const bin = join(tempDir('ns-fake-agent-'), 'bin');
  mkdirSync(bin);
  const script = join(bin, name);
  writeFileSync(
    script,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${version}"; read line; exit 0; fi\necho "working on: $1"; read line; echo "got: $line"\n`,
  );
  chmodSync(script, 0o755);
  return bin;
}
