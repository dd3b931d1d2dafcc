/**
 * Issue 9.2 with real TUI programs nobody wrote a rule for: `nightshift run`
 * blocks on whiptail, dialog and fzf as `unknown-dialog` within 5 s of the
 * job's start (the default settle, 1.5 s, included) and escalates; nothing is
 * ever typed into them. The programs come from Debian (.ci/run installs
 * whiptail, dialog and fzf); with CI set a missing one fails its test.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCast } from '../../src/record/cast-reader.js';
import { cleanup, readJsonl, startCli, tempDir, type JsonLine } from '../helpers/cli.js';

afterEach(cleanup);

const installed = (bin: string) => ['/usr/bin', '/bin', '/usr/local/bin'].some((d) => existsSync(join(d, bin)));
const need = (bin: string) => !installed(bin) && !process.env.CI;

const isBlocked = (o: JsonLine) => o.type === 'state' && o.state === 'blocked';

async function superviseDialog(command: string[]) {
  const state = tempDir();
  const p = startCli(['run', '--json', '--quiet', '--state', state, '--cols', '100', '--rows', '30', '--timeout', '30s', '--', ...command]);
  const started = await p.waitForJson((o) => o.type === 'state' && o.state === 'running', 10_000, 'running');
  const blocked = await p.waitForJson(isBlocked, 10_000, 'blocked');
  const action = await p.waitForJson((o) => o.type === 'action', 5_000, 'the escalation');
  // A person would answer now; the test stops the job instead (Ctrl-C, terminate, kill).
  p.child.kill('SIGTERM');
  await p.waitExit(15_000);
  const job = p.jsonLines()[0]!;
  return { p, started, blocked, action, dir: job.dir as string };
}

const ms = (a: JsonLine, b: JsonLine) => Date.parse(String(b.time)) - Date.parse(String(a.time));

describe('dialogs no rule names (issue 9.2)', () => {
  it.skipIf(need('whiptail'))('whiptail --yesno: blocked unknown-dialog (buttons) within 5 s, escalated, never answered', async () => {
    const r = await superviseDialog(['whiptail', '--yesno', 'Deploy the new schema to staging?', '10', '60']);
    expect(r.blocked).toMatchObject({ reason: 'unknown-dialog', class: 'unknown', detail: 'buttons' });
    expect(ms(r.started, r.blocked)).toBeLessThanOrEqual(5_000);
    expect(r.action).toMatchObject({ kind: 'escalate', reason: 'unknown-dialog' });
    expect(String(r.action.prompt)).toContain('Deploy the new schema to staging?');
    expect(r.p.jsonLines().filter((o) => o.type === 'action' && o.kind === 'answer')).toEqual([]);
    // Nothing was typed into the dialog: no input event before the stop's Ctrl-C.
    const cast = await readCast(join(r.dir, 'recording.cast'));
    expect(cast.events.filter((e) => e.code === 'i')).toEqual([]);
    expect(readJsonl(join(r.dir, 'evidence.jsonl')).filter((e) => e.type === 'prompt')).toMatchObject([{ decision: 'escalate', reason: 'unknown-dialog' }]);
  }, 40_000);

  it.skipIf(need('dialog'))('dialog --menu (its selection is reverse video only): blocked unknown-dialog within 5 s', async () => {
    const r = await superviseDialog(['dialog', '--menu', 'Pick a target', '15', '50', '4', '1', 'staging', '2', 'production', '3', 'local']);
    expect(r.blocked).toMatchObject({ reason: 'unknown-dialog', class: 'unknown' });
    expect(ms(r.started, r.blocked)).toBeLessThanOrEqual(5_000);
    expect(String(r.action.prompt)).toContain('Pick a target');
  }, 40_000);

  it('a curses menu whose selection is shown only in reverse video (no glyph, no buttons, no hint): blocked unknown-dialog (menu) within 5 s', async () => {
    const script = [
      'import curses',
      'def main(s):',
      '    curses.curs_set(0)',
      '    s.addstr(1, 2, "Select the environment")',
      '    for i, name in enumerate(["staging", "production", "local"]):',
      '        s.addstr(3 + i, 4, name, curses.A_REVERSE if i == 0 else curses.A_NORMAL)',
      '    s.refresh()',
      '    s.getch()',
      'curses.wrapper(main)',
    ].join('\n');
    const r = await superviseDialog(['python3', '-c', script]);
    expect(r.blocked).toMatchObject({ reason: 'unknown-dialog', class: 'unknown', detail: 'menu' });
    expect(ms(r.started, r.blocked)).toBeLessThanOrEqual(5_000);
    expect(String(r.action.prompt)).toBe('Select the environment\nstaging\nproduction\nlocal');
  }, 40_000);

  it.skipIf(need('fzf'))('fzf over a list: blocked unknown-dialog (picker) within 5 s', async () => {
    const r = await superviseDialog(['bash', '-c', 'printf "alpha\\nbeta\\ngamma\\n" | fzf']);
    expect(r.blocked).toMatchObject({ reason: 'unknown-dialog', detail: 'picker' });
    expect(ms(r.started, r.blocked)).toBeLessThanOrEqual(5_000);
  }, 40_000);

  it('a Node menu with a blinking status glyph that no rule names: blocked unknown-dialog within 5 s', async () => {
    const script = [
      "const frames = ['●', '◌'];",
      'let i = 0;',
      "const draw = () => process.stdout.write(`\\x1b[H\\x1b[2J${frames[i++ % 2]} deploy-tool v3\\r\\n? Pick a target (Use arrow keys)\\r\\n❯ staging\\r\\n  production\\r\\n  local`);",
      'draw();',
      'setInterval(draw, 600);',
    ].join('\n');
    const r = await superviseDialog([process.execPath, '-e', script]);
    expect(r.blocked).toMatchObject({ reason: 'unknown-dialog', detail: 'menu' });
    expect(ms(r.started, r.blocked)).toBeLessThanOrEqual(5_000);
    expect(readFileSync(join(r.dir, 'summary.json'), 'utf8')).toContain('unknown-dialog');
  }, 40_000);
});
