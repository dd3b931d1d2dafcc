/**
 * A prompt printed right after a flood is seen and answered, through the
 * real daemon, PTY host and bash (its own state dir and socket). The torn
 * look it guards against (a look taken while xterm is part way through a
 * batch, kept until more output came) did not show here before its fix;
 * src/supervisor/screen-feed.test.ts catches that one.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { describe, expect, it } from 'vitest';
import { testScopes } from '../helpers/daemon.js';

const scope = testScopes();

describe('a flood, then a question', () => {
  it('60 MB of base64 lines (45 MB random), then a [y/N] question to delete: blocked on the prompt (destructive) with the question on the screen shown, answered, exit 0', async (ctx) => {
    const s = scope(ctx);
    const cwd = s.tempDir();
    const d = await s.daemon(s.stateDir());
    const script = 'head -c 45000000 /dev/urandom | base64 -w 160; printf "Delete the build cache? [y/N] "; read a; echo "answered $a"';
    await d.submit('flood-ask', ['bash', '-c', script], ['--cwd', cwd]);
    const blocked = await d.waitState('flood-ask', 'blocked', 'prompt', 90_000);
    expect(blocked.reason).toMatchObject({ code: 'prompt', class: 'destructive' });
    const shown = await d.show('flood-ask');
    expect(shown.screen).toContain('Delete the build cache? [y/N]');
    const r = await d.ns('answer', ['flood-ask', 'n']);
    expect(r.code, r.stderr).toBe(0);
    const done = await d.waitState('flood-ask', 'done', 'exit', 30_000);
    expect(done.exit).toEqual({ code: 0, signal: null });
  }, 180_000);
});
