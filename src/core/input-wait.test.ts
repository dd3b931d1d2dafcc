import { describe, expect, it } from 'vitest';
import { driveWatchdog } from '../../test/helpers/watchdog-harness.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { guardedClass, programKind, waitKind } from './input-wait.js';
import type { Signal } from './watchdog-types.js';

const MIN = 60_000;

function harness() {
  const h = driveWatchdog({ screenQuietMs: 3 * MIN, toolGapMs: 15 * MIN, settleMs: 1_500 });
  const screen = (text: string): Signal => ({ kind: 'screen', snapshot: snapshotOf(text) });
  const reads = (canonical: boolean, echo: boolean): Signal[] => [
    { kind: 'tty-read', reading: true },
    { kind: 'tty-mode', canonical, echo },
  ];
  const blockedAt = () => h.wd.history.find((x) => x.to === 'blocked')?.t;
  return { ...h, screen, reads, blockedAt };
}

describe('waiting seen by the process and the terminal', () => {
  it('a bare `read` with no question text is blocked 2 s after the screen went still', () => {
    const h = harness();
    h.at(300, h.screen('$ '));
    for (const s of h.reads(true, true)) h.at(800, s);
    h.at(2_299);
    expect(h.wd.state).toBe('running');
    h.at(2_300);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason).toMatchObject({ code: 'unknown-prompt', class: 'question', detail: 'waiting-input:line' });
    expect(h.wd.actions).toHaveLength(1);
    expect(h.wd.actions[0]).toMatchObject({ kind: 'escalate', class: 'question' });
  });

  it('echo off at a line read is a secret, whatever its words', () => {
    const h = harness();
    h.at(100, h.screen('Enter the code for the vault '));
    for (const s of h.reads(true, false)) h.at(400, s);
    h.at(2_100);
    expect(h.wd.reason).toMatchObject({ code: 'unknown-prompt', class: 'secret' });
    expect(h.wd.actions[0]!.kind).toBe('escalate');
  });

  it("sudo's password question is a secret and is never answered", () => {
    const h = harness();
    h.at(100, h.screen('[sudo] password for agent: '));
    for (const s of h.reads(true, false)) h.at(300, s);
    h.at(10_000);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason.class).toBe('secret');
    expect(h.wd.actions.map((a) => a.kind)).toEqual(['escalate']);
  });

  it("ssh's host-key question is trust, escalated", () => {
    const h = harness();
    const q = "The authenticity of host '[127.0.0.1]:2222 ([127.0.0.1]:2222)' can't be established.\nED25519 key fingerprint is SHA256:abc.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? ";
    h.at(100, h.screen(q));
    for (const s of h.reads(true, true)) h.at(300, s);
    h.at(10_000);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason.class).toBe('trust');
    expect(h.wd.actions.map((a) => [a.kind, a.class])).toEqual([['escalate', 'trust']]);
  });

  it('an editor in the foreground is blocked after 5 s of a still screen, with its file', () => {
    const h = harness();
    h.at(200, { kind: 'foreground', program: 'vim.basic' });
    h.at(200, { kind: 'foreground-file', file: '/tmp/COMMIT_EDITMSG' });
    h.at(500, h.screen('\n~\n~\n"/tmp/COMMIT_EDITMSG" 0L, 0B'));
    h.at(5_499);
    expect(h.wd.state).toBe('running');
    h.at(5_500);
    expect(h.wd.reason).toMatchObject({ code: 'unknown-prompt', class: 'editor', detail: 'waiting-input:editor:vim.basic' });
    expect(h.wd.actions[0]!.prompt).toBe('vim.basic /tmp/COMMIT_EDITMSG');
  });

  it('a raw-mode reader that keeps drawing new screens is not waiting; a busy tree is not either', () => {
    const h = harness();
    for (const s of h.reads(false, false)) h.at(100, s);
    for (let t = 1_000; t <= 30_000; t += 1_000) h.at(t, h.screen(`tick ${t}`));
    expect(h.wd.state).toBe('running');
    h.at(31_000, { kind: 'proc', busy: true });
    h.at(60_000);
    expect(h.wd.state).toBe('running');
  });

  it('a live display (top: select, not a terminal read) redrawing every 3 s is never blocked', () => {
    const h = harness();
    h.at(100, { kind: 'foreground', program: 'top' });
    for (let t = 500; t <= 2 * MIN; t += 3_000) h.at(t, h.screen(`top - 01:${t} up 1 day\nTasks: 3 total`));
    expect(h.wd.state).toBe('running');
  });

  it('typing at the prompt (something new on screen) ends the wait', () => {
    const h = harness();
    h.at(100, h.screen('name? '));
    for (const s of h.reads(true, true)) h.at(200, s);
    h.at(2_500);
    expect(h.wd.state).toBe('blocked');
    h.at(3_000, h.screen('name? ada\n$ '));
    expect(h.wd.state).toBe('running');
  });
});

describe('classes', () => {
  it('names editors and pagers by their process name', () => {
    expect(['vim', 'vim.basic', 'nvim', 'nano', 'emacs-nox', 'micro'].map(programKind)).toEqual(Array(6).fill('editor'));
    expect(['less', 'more', 'man'].map(programKind)).toEqual(['pager', 'pager', 'pager']);
    expect(programKind('node')).toBeUndefined();
  });

  it('tells the wait kinds apart', () => {
    expect(waitKind('python3', true, { canonical: true, echo: false })).toBe('line');
    expect(waitKind('bash', true, { canonical: false, echo: false })).toBe('raw');
    expect(waitKind('top', false, undefined)).toBeUndefined();
    expect(waitKind('nano', true, { canonical: false, echo: false })).toBe('editor');
  });

  it('guards secrets and host keys', () => {
    expect(guardedClass("Enter passphrase for key '/root/.ssh/id_ed25519': ", false, undefined)).toBe('secret');
    expect(guardedClass('Continue? [y/N] ', true, { canonical: true, echo: true })).toBeUndefined();
    expect(guardedClass('x ', true, { canonical: true, echo: false })).toBe('secret');
  });
});

describe('an editor writing its swap file', () => {
  it('is still an editor waiting: its own disk writes do not hold the block off', () => {
    const h = harness();
    h.at(100, { kind: 'foreground', program: 'vim' });
    h.at(200, h.screen('~\n~\n"x.txt" [New]'));
    h.at(4_200, { kind: 'proc', busy: true });
    h.at(5_200);
    expect(h.wd.reason).toMatchObject({ code: 'unknown-prompt', class: 'editor' });
  });
});
