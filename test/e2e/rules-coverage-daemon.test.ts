/**
 * The agent-version warning under the daemon: `show` (JSON and human) and
 * the daemon's stderr name a fake `claude` 2.9.0 as newer than the rules.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testScopes, waitUntil } from '../helpers/daemon.js';
import { fakeClaude } from '../helpers/fake-agent.js';

const scope = testScopes();
const NOTE = 'rules not checked against claude-code 2.9.0 (newest checked: 2.1.332); dialogs no rule names will be escalated';

describe('daemon: rules coverage of the agent version', () => {
  it('a newer agent: rules_coverage in show --json and show, one line on the daemon stderr', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir(), [], { PATH: `${fakeClaude()}${delimiter}${process.env.PATH}` });
    await d.submit('newer', ['claude', 'task'], ['--cwd', h.tempDir('ns-work-'), '--agent', 'claude']);
    const shown = await waitUntil(
      async () => {
        const s = (await d.show('newer')) as { rules_coverage?: unknown };
        return s.rules_coverage ? s : undefined;
      },
      15_000,
      'rules_coverage in show',
    );
    expect(shown.rules_coverage).toEqual({ agent: 'claude-code', version: '2.9.0', checked: ['2.1.112', '2.1.332'], covered: false, note: NOTE });
    const human = await d.ns('show', ['newer']);
    expect(human.stdout).toContain(`  rules:    ${NOTE}`);
    await d.proc.waitForLine((l) => l.includes(NOTE), 5_000, 'the warning on the daemon stderr');
    expect(d.proc.stderrLines.filter((l) => l.includes('rules not checked'))).toEqual([`nightshift daemon: job newer: ${NOTE}`]);
    await d.ns('cancel', ['newer']);
  }, 40_000);
});
