/**
 * The web page's pure parts (web/*.js are browser modules with no build;
 * these touch no DOM): how an evidence record reads in the timeline, and a
 * job's state as the pill writes it. The evidence shapes are EvidenceLog's
 * (src/supervisor/evidence.ts) and person-acts.ts's.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain browser module, without types
import { describe as describeRecord } from '../../web/timeline.js';
// @ts-expect-error: a plain browser module, without types
import { reasonText, stateLook } from '../../web/ui.js';

describe('the evidence timeline', () => {
  it('reads a prompt, a person’s answer and what followed', () => {
    expect(describeRecord({ type: 'prompt', prompt: 'Delete the cache? [y/N]', rule: 'generic-yes-no', decision: 'escalate', layer: 'risk', why: 'risky', answered_by: null, keys: [] })).toEqual({
      kind: 'prompt',
      title: 'Asked: “Delete the cache? [y/N]”',
      detail: 'rule generic-yes-no · decided: escalate · layer risk · risky',
    });
    expect(describeRecord({ type: 'followup', layer: 'human', answered_by: 'human:alice@web', keys: ['n', 'enter'], text: 'decline', why: 'answered by a person' })).toEqual({
      kind: 'human',
      title: 'Answered by human:alice@web',
      detail: 'keys: n enter (decline) answered by a person',
    });
    expect(describeRecord({ type: 'outcome', episode: 1, followed: 'exit:1' }).title).toBe('Then: the job ended (exit 1)');
    expect(describeRecord({ type: 'outcome', episode: 1, followed: 'prompt-cleared' }).title).toBe('Then: the question went away (answered)');
  });

  it('reads an automatic answer, a person’s acts, a verdict and a policy’s decline', () => {
    expect(describeRecord({ type: 'prompt', prompt: 'Ok to proceed? (y)', rule: 'npx-install', decision: 'answer', layer: 'policy', why: 'allowed', answered_by: 'rule:npx-install', keys: ['y', 'enter'] }).detail).toBe(
      'rule npx-install · answered by rule:npx-install (y enter) · layer policy · allowed',
    );
    expect(describeRecord({ type: 'person', action: 'send', by: 'human:dan@web', text: 'y' }).title).toBe('Sent a line by human:dan@web');
    expect(describeRecord({ type: 'person', action: 'cancel', by: 'human:dan@web' }).title).toBe('Cancelled by human:dan@web');
    expect(describeRecord({ type: 'verdict', probe: 'repeated-failure', severity: 'block', message: 'Bash failed 3 times', response: 'bind' })).toEqual({
      kind: 'verdict',
      title: 'Probe repeated-failure: block',
      detail: 'Bash failed 3 times · response: bind',
    });
    expect(describeRecord({ type: 'prompt', layer: 'policy', answered_by: 'policy:on-unanswered', keys: ['n', 'enter'], why: 'nobody answered in time' }).title).toBe('Answered by policy:on-unanswered');
    expect(describeRecord({ type: 'something-new', x: 1 })).toMatchObject({ kind: 'other', title: 'something-new' });
  });
});

describe('a job’s state on the page', () => {
  const job = (state: string, reason: object) => ({ state, reason });
  it('writes the state and picks its colour: a question amber, another block red, done by success', () => {
    expect(stateLook(job('blocked', { code: 'prompt' }))).toEqual({ cls: 'waiting', word: 'blocked' });
    expect(stateLook(job('blocked', { code: 'hung' }))).toEqual({ cls: 'blocked', word: 'blocked' });
    expect(stateLook(job('done', { code: 'exit', exit_code: 0 }))).toEqual({ cls: 'done-ok', word: 'done' });
    expect(stateLook(job('done', { code: 'turn-ended', exit_code: 0 }))).toEqual({ cls: 'done-ok', word: 'done' });
    expect(stateLook(job('done', { code: 'exit', exit_code: 1 }))).toEqual({ cls: 'done-bad', word: 'done (failed)' });
    expect(stateLook(job('done', { code: 'cancelled', exit_code: 130, signal: 'SIGINT' }))).toEqual({ cls: 'done-bad', word: 'done (failed)' });
    expect(stateLook(job('running', { code: 'started' }))).toEqual({ cls: 'running', word: 'running' });
  });

  it('writes the reason as the CLI’s board does', () => {
    expect(reasonText({ code: 'prompt', rule: 'generic-yes-no', class: 'destructive' })).toBe('prompt generic-yes-no destructive');
    expect(reasonText({ code: 'exit', exit_code: 0 })).toBe('exit code 0');
    expect(reasonText({ code: 'queued', detail: 'after build' })).toBe('queued: after build');
  });
});
