/**
 * A question for a secret (echo off, nothing on screen) is answered by a
 * person; what they type reaches the program and nothing else: no evidence
 * record, log line, recording event, summary or reply holds it. Needs a
 * build first (npm run build).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testScopes } from '../helpers/daemon.js';

const scope = testScopes();

const SECRET = 'hunter2-correct-horse';
const ASK = ['python3', '-c', "import getpass; p = getpass.getpass('Vault passphrase: '); print('got', len(p), 'chars')"];

describe('a secret typed by a person', () => {
  for (const verb of ['send', 'answer'] as const) {
    it(`through ${verb}: reaches the program, and is written nowhere in the job folder nor in the reply`, async (ctx) => {
      const s = scope(ctx);
      const d = await s.daemon(s.stateDir());
      await d.submit('vault', ASK, ['--cwd', s.tempDir()]);
      const blocked = await d.waitState('vault', 'blocked', 'unknown-prompt', 20_000);
      expect(blocked.reason.class).toBe('secret');
      const r = await d.ns(verb, ['vault', SECRET]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      const done = await d.waitState('vault', 'done', 'exit', 20_000);
      const dir = done.paths!.dir;
      for (const f of readdirSync(dir).map((n) => join(dir, n))) expect(readFileSync(f, 'utf8'), f).not.toContain(SECRET);
      // It did reach the program: the recording shows its reply to it.
      expect(readFileSync(done.paths!.recording, 'utf8')).toContain(`got ${SECRET.length} chars`);
    }, 60_000);
  }
});
