/** A stand-in agent on PATH for tests of the agent-version check (src/supervisor/agent-version.ts). */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';

/** A `claude` that answers --version like Claude Code 2.9.0 would, and otherwise waits for a line. */
export function fakeClaude(): string {
  const bin = join(tempDir('ns-fake-agent-'), 'bin');
  mkdirSync(bin);
  const script = join(bin, 'claude');
  writeFileSync(
    script,
    '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.9.0 (Claude Code)"; read line; exit 0; fi\necho "working on: $1"; read line; echo "got: $line"\n',
  );
  chmodSync(script, 0o755);
  return bin;
}
