import { describe, expect, it } from 'vitest';
import { driveWatchdog } from '../../test/helpers/watchdog-harness.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { KNOWN_DIALOG_SETTLE_MS, type Signal } from './watchdog-types.js';

const MIN = 60_000;

function harness(config = { screenQuietMs: 3 * MIN, toolGapMs: 15 * MIN, settleMs: 1_500 }) {
  const { clock, wd, at } = driveWatchdog(config);
  const screen = (text: string, cursor?: { x: number; y: number } | 'below'): Signal => ({
    kind: 'screen',
    snapshot: snapshotOf(text, cursor ? { cursor } : {}),
  });
  const states = () => wd.history.map((h) => `${h.t}:${h.to}:${h.reason.code}`);
  return { clock, wd, at, screen, states };
}

describe('Watchdog', () => {
  it('blocks on a known prompt once its lines have settled, within seconds', () => {
    const h = harness();
    h.at(1_000, h.screen('$ npx cowsay hi\nNeed to install the following packages:\ncowsay@1.6.0\nOk to proceed? (y) '));
    h.at(2_400);
    expect(h.wd.state).toBe('running');
    h.at(2_500);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason).toMatchObject({ code: 'prompt', rule: 'npx-install', class: 'dependency' });
    expect(h.wd.actions).toHaveLength(1);
    expect(h.wd.actions[0]).toMatchObject({ kind: 'escalate', rule: 'npx-install', since: 1_000, t: 2_500 });
    expect(h.wd.actions[0]!.prompt).toContain('cowsay@1.6.0');
  });

  it('ignores animation above a prompt: settled means the prompt lines, not the whole screen', () => {
    const h = harness();
    const dialog = (bullet: string) =>
      `${bullet} Bash(touch made.txt)\n  ⎿  Running…\n\n Bash command\n\n   touch made.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to proj/ from this project\n   3. No\n\n Esc to cancel · Tab to amend`;
    for (let t = 0; t <= 1_800; t += 600) h.at(1_000 + t, h.screen(dialog(t % 1_200 === 0 ? '●' : ' '), 'below'));
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason.rule).toBe('claude-code-permission');
    expect(h.wd.history.at(-1)!.t).toBe(1_000 + KNOWN_DIALOG_SETTLE_MS);
  });

  it('one escalate per episode, however long it waits', () => {
    const h = harness();
    h.at(0, h.screen("rm: remove regular file 'a.txt'? "));
    h.at(8 * 60 * MIN);
    expect(h.wd.actions).toHaveLength(1);
    expect(h.wd.reason).toMatchObject({ code: 'prompt', class: 'destructive' });
  });

  it('a prompt that leaves the screen unblocks; the next prompt is a new episode', () => {
    const h = harness();
    h.at(0, h.screen("rm: remove regular file 'a.txt'? "));
    h.at(2_000);
    h.at(3_000, h.screen("rm: remove regular file 'a.txt'? y\nrm: remove regular file 'b.txt'? "));
    expect(h.wd.state).toBe('running');
    expect(h.wd.reason.code).toBe('prompt-cleared');
    h.at(5_000);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.actions.map((a) => a.prompt)).toEqual(["rm: remove regular file 'a.txt'?", "rm: remove regular file 'b.txt'?"]);
  });

  it('a prompt-looking line that scrolls on is not a prompt', () => {
    const h = harness();
    h.at(0, h.screen('Do you want to continue? [Y/n]'));
    h.at(500, h.screen('Do you want to continue? [Y/n]\nreading package lists...\nDone', 'below'));
    h.at(10_000);
    expect(h.wd.state).toBe('running');
    expect(h.wd.actions).toHaveLength(0);
  });

  it('a prompt echoed with a newline (cursor not on its line) is not a prompt', () => {
    const h = harness();
    h.at(0, h.screen('Ok to proceed? (y/n)', 'below'));
    h.at(60_000);
    expect(h.wd.state).toBe('running');
  });

  it('quiet 3 min with a question at the cursor and no tool call → blocked unknown-prompt', () => {
    const h = harness();
    h.at(1_000, h.screen('Which database should I migrate first? '));
    h.at(1_000 + 3 * MIN - 1);
    expect(h.wd.state).toBe('running');
    h.at(1_000 + 3 * MIN);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason).toMatchObject({ code: 'unknown-prompt', class: 'unknown' });
    expect(h.wd.actions[0]).toMatchObject({ kind: 'escalate', reason: 'unknown-prompt', since: 1_000 });
  });

  it('a tool call during the quiet time means the question is not blocking yet', () => {
    const h = harness();
    h.at(0, h.screen('Shall I continue?'));
    h.at(60_000, { kind: 'tool', event: { phase: 'start', name: 'Bash' } });
    h.at(4 * MIN);
    expect(h.wd.state).toBe('running');
    expect(h.wd.reason.code).toBe('quiet-tool-in-flight');
  });

  it('a question-looking last line while a child works is not blocked: waiting programs do not burn CPU', () => {
    const h = harness();
    h.at(0, h.screen('Do you want to continue? [Y/n]', 'below'));
    h.at(1_000, { kind: 'proc', busy: true });
    h.at(30 * MIN);
    expect(h.wd.state).toBe('running');
    expect(h.wd.reason.code).toBe('quiet-child-busy');
  });

  it('quiet with a busy child stays running: a long build is not a block', () => {
    const h = harness();
    h.at(0, h.screen('$ make\ncc -O2 -c big.c', 'below'));
    h.at(5_000, { kind: 'proc', busy: true });
    h.at(2 * 60 * MIN);
    expect(h.wd.state).toBe('running');
    expect(h.wd.reason.code).toBe('quiet-child-busy');
    expect(h.wd.actions).toHaveLength(0);
  });

  it('a quiet spell ends when the screen moves again: running/screen, not a stale "quiet"', () => {
    const h = harness();
    h.at(0, h.screen('$ make\ncc -O2 -c big.c', 'below'));
    h.at(5_000, { kind: 'proc', busy: true });
    h.at(4 * MIN);
    expect(h.wd.reason.code).toBe('quiet-child-busy');
    h.at(4 * MIN + 10, h.screen('$ make\ncc -O2 -c big.c\ncc -O2 -c small.c', 'below'));
    expect(h.states().slice(-2)).toEqual([`${3 * MIN}:running:quiet-child-busy`, `${4 * MIN + 10}:running:screen`]);
    h.at(4 * MIN + 20, h.screen('$ make\ncc -O2 -c big.c\ncc -O2 -c small.c\nld', 'below'));
    expect(h.states()).toHaveLength(new Set(h.states()).size);
    expect(h.states().at(-1)).toBe(`${4 * MIN + 10}:running:screen`);
  });

  it('quiet with a tool call in flight stays running', () => {
    const h = harness();
    h.at(0, h.screen('● Bash(npm test)', 'below'));
    h.at(1_000, { kind: 'tool', event: { phase: 'start', name: 'Bash', id: 't1' } });
    h.at(60 * MIN);
    expect(h.wd.state).toBe('running');
  });

  it('quiet and nothing moves → hung after the tool-call gap, counted from the last progress', () => {
    const h = harness();
    h.at(0, h.screen('starting worker', 'below'));
    h.at(2 * MIN, { kind: 'tool', event: { phase: 'start', name: 'Read', id: 'a' } });
    h.at(3 * MIN, { kind: 'tool', event: { phase: 'finish', name: 'Read', id: 'a' } });
    h.at(3 * MIN + 15 * MIN - 1);
    expect(h.wd.state).toBe('running');
    h.at(3 * MIN + 15 * MIN);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason.code).toBe('hung');
    expect(h.wd.actions[0]).toMatchObject({ kind: 'escalate', reason: 'hung', since: 3 * MIN });
  });

  it('a child that goes idle starts the hang clock then', () => {
    const h = harness();
    h.at(0, h.screen('building', 'below'));
    h.at(1_000, { kind: 'proc', busy: true });
    h.at(40 * MIN, { kind: 'proc', busy: false });
    h.at(40 * MIN + 15 * MIN - 1);
    expect(h.wd.state).toBe('running');
    h.at(55 * MIN);
    expect(h.wd.reason.code).toBe('hung');
  });

  it('activity ends a hung episode; a new hang is a new episode', () => {
    const h = harness({ screenQuietMs: 1_000, toolGapMs: 2_000, settleMs: 500 });
    h.at(0, h.screen('x', 'below'));
    h.at(5_000);
    expect(h.wd.reason.code).toBe('hung');
    h.at(6_000, { kind: 'proc', busy: true });
    expect(h.wd.state).toBe('running');
    // woken by the child, then re-stated at once: still quiet, but a child works
    expect(h.states().slice(-2)).toEqual(['6000:running:proc', '6000:running:quiet-child-busy']);
    h.at(7_000, { kind: 'proc', busy: false });
    h.at(9_000);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.actions.map((a) => a.reason)).toEqual(['hung', 'hung']);
  });

  it('exit ends the job with the exit code or the signal', () => {
    const h = harness();
    h.at(0, h.screen("rm: remove regular file 'a'? "));
    h.at(3_000);
    h.at(4_000, { kind: 'exit', exitCode: 130, signal: 'SIGINT' });
    expect(h.wd.state).toBe('done');
    expect(h.wd.reason).toMatchObject({ code: 'signal', signal: 'SIGINT' });
    expect(h.wd.nextDeadline()).toBeUndefined();
    h.at(9_000, h.screen('ignored'));
    expect(h.wd.history.at(-1)!.to).toBe('done');
  });

  it('nextDeadline names the exact instant something can change', () => {
    const h = harness();
    h.at(10_000, h.screen('Proceed? [y/N]'));
    expect(h.wd.nextDeadline()).toBe(11_500);
    h.at(11_500);
    expect(h.wd.nextDeadline()).toBeUndefined();
  });

  describe('quiet means nothing new (issue 9.1)', () => {
    // No rule names this dialog; its last line is a question (a key-hint footer alone is issue 9.2's dialog structure).
    const dialog = (bullet: string) => `${bullet} Working on it\n\n Apply the migration to the staging database?`;

    it('a blinking bullet every 0.6 s does not keep a questioning screen busy: unknown-prompt 3 min after the last new state', () => {
      const h = harness();
      for (let t = 0; t <= 4 * MIN; t += 600) h.at(t, h.screen(dialog(Math.floor(t / 600) % 2 ? '●' : ' ')));
      expect(h.wd.state).toBe('blocked');
      expect(h.wd.reason).toMatchObject({ code: 'unknown-prompt', class: 'unknown' });
      // The two states were new at 0 and 0.6 s; after that the screen only repeats itself.
      expect(h.wd.history.at(-1)!.t).toBe(600 + 3 * MIN);
      expect(h.wd.actions).toHaveLength(1);
    });

    it('the blink does not end the episode; something new does', () => {
      const h = harness();
      for (let t = 0; t <= 4 * MIN; t += 600) h.at(t, h.screen(dialog(Math.floor(t / 600) % 2 ? '●' : ' ')));
      expect(h.wd.state).toBe('blocked');
      h.at(4 * MIN + 100, h.screen(dialog('●')));
      expect(h.wd.state).toBe('blocked');
      h.at(4 * MIN + 200, h.screen(`${dialog('●')}\nApplied 1 of 3`));
      expect(h.wd.state).toBe('running');
      expect(h.wd.reason.code).toBe('screen');
    });

    it('a retry loop that redraws "Retrying in 10s… 1s" with a spinner for 20 minutes is hung (cycling-screen) at the tool gap, never answered', () => {
      const h = harness();
      const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
      for (let t = 0; t <= 20 * MIN; t += 100) {
        const left = 10 - (Math.floor(t / 1_000) % 10);
        h.at(t, h.screen(`connecting to registry.example…\n${frames[(t / 100) % 10]} Retrying in ${left}s…`));
      }
      expect(h.wd.state).toBe('blocked');
      expect(h.wd.reason).toMatchObject({ code: 'hung', detail: 'cycling-screen' });
      // Its states were all seen within the first 10 s cycle; 15 min on, it is hung.
      expect(h.wd.history.at(-1)!.t).toBeLessThanOrEqual(10_000 + 15 * MIN);
      expect(h.wd.actions.map((a) => a.kind)).toEqual(['escalate']);
    });

    it('real progress is not quiet: a percentage that advances, test dots, new lines', () => {
      const h = harness();
      for (let t = 0; t <= 20 * MIN; t += 1_000) {
        const pct = Math.floor((t / (20 * MIN)) * 1000) / 10;
        h.at(t, h.screen(`building…\n[${'#'.repeat(Math.floor(pct / 5)).padEnd(20)}] ${pct.toFixed(1)}%\n${'.'.repeat(Math.floor(t / 60_000))}`));
      }
      expect(h.states()).toEqual(['0:queued:submitted', '0:running:started']);
    });
  });

  describe('dialogs by their structure (issue 9.2)', () => {
    const menu = (glyph: string) => `${glyph} Deploy tool v3\n? Pick a target (Use arrow keys)\n❯ staging\n  production\n  local`;

    it('a menu no rule names is blocked unknown-dialog once it has been still for the settle time, escalated, never answered', () => {
      const h = harness();
      for (let t = 0; t <= 3_000; t += 600) h.at(1_000 + t, h.screen(menu(Math.floor(t / 600) % 2 ? '●' : '◌')));
      expect(h.wd.state).toBe('blocked');
      expect(h.wd.reason).toMatchObject({ code: 'unknown-dialog', class: 'unknown', detail: 'menu' });
      expect(h.wd.history.at(-1)!.t).toBe(2_500);
      expect(h.wd.actions.map((a) => `${a.kind}:${a.reason}`)).toEqual(['escalate:unknown-dialog']);
      expect(h.wd.actions[0]!.prompt).toContain('❯ staging');
      expect(h.wd.actions[0]!.keys).toBeUndefined();
    });

    it('not while the process tree works; and the dialog leaving the screen ends the episode', () => {
      const h = harness();
      h.at(500, { kind: 'proc', busy: true });
      h.at(1_000, h.screen(menu(' ')));
      h.at(5_000);
      expect(h.wd.state).toBe('running');
      h.at(6_000, { kind: 'proc', busy: false });
      expect(h.wd.reason.code).toBe('unknown-dialog');
      h.at(7_000, h.screen('Deploying to staging…'));
      expect(h.wd.state).toBe('running');
      expect(h.wd.reason.code).toBe('prompt-cleared');
      expect(h.wd.actions).toHaveLength(1);
    });

    it('an agent\'s dialog with the asked-about tool call in flight (its transcript shows the call first) is still a dialog; a finished call holds it back', () => {
      const h = harness();
      h.at(900, { kind: 'tool', event: { phase: 'start', name: 'Bash', id: 'c1' } });
      h.at(1_000, h.screen(menu(' ')));
      h.at(2_500);
      expect(h.wd.reason.code).toBe('unknown-dialog');
      h.at(2_600, { kind: 'tool', event: { phase: 'start', name: 'Bash', id: 'c1' } });
      expect(h.wd.reason.code).toBe('unknown-dialog');
      const g = harness();
      g.at(1_000, g.screen(menu(' ')));
      g.at(1_200, { kind: 'tool', event: { phase: 'finish', name: 'Bash', id: 'c0' } });
      g.at(5_000);
      expect(g.wd.state).toBe('running');
    });

    it('a dialog a rule names is that rule\'s prompt, not an unknown dialog', () => {
      const h = harness();
      const screen = ' Bash command\n\n   touch made.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to proj/ from this project\n   3. No\n\n Esc to cancel · Tab to amend';
      h.at(1_000, h.screen(screen, 'below'));
      h.at(3_000);
      expect(h.wd.reason).toMatchObject({ code: 'prompt', rule: 'claude-code-permission' });
    });
  });

  describe('line prompts faster (issue 9.6)', () => {
    it('a line prompt whose program is blocked reading the terminal settles after 250 ms, not 1.5 s', () => {
      const h = harness();
      h.at(900, { kind: 'tty-read', reading: true });
      h.at(1_000, h.screen('Continue with the upgrade? [y/N] '));
      h.at(1_249);
      expect(h.wd.state).toBe('running');
      h.at(1_250);
      expect(h.wd.reason).toMatchObject({ code: 'prompt', rule: 'generic-yes-no' });
    });

    it('without the terminal read the settle time stays', () => {
      const h = harness();
      h.at(900, { kind: 'tty-read', reading: false });
      h.at(1_000, h.screen('Continue with the upgrade? [y/N] '));
      h.at(2_499);
      expect(h.wd.state).toBe('running');
      h.at(2_500);
      expect(h.wd.reason).toMatchObject({ code: 'prompt', rule: 'generic-yes-no' });
    });

    it('a dialog a rule names (cursor: any) settles in its own time, not the early one, even while its program reads the terminal', () => {
      const h = harness();
      h.at(900, { kind: 'tty-read', reading: true });
      h.at(1_000, h.screen(' Bash command\n\n   touch made.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n\n Esc to cancel · Tab to amend', 'below'));
      h.at(1_000 + KNOWN_DIALOG_SETTLE_MS - 1);
      expect(h.wd.state).toBe('running');
      h.at(1_000 + KNOWN_DIALOG_SETTLE_MS);
      const rule = 'claude-code-permission';
      expect(h.wd.reason).toMatchObject({ code: 'prompt', rule });
    });
  });
});

