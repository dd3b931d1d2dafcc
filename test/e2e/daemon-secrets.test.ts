/**
 * Issue 8, point 5: a job's own secrets. Real daemons, real PTYs, a private
 * state dir and a local HTTP receiver per test (test/helpers/daemon.ts).
 * A value given with `submit --env` that the job prints must not reach a
 * page, a log, `show`, `board` or summary.json; only the recording keeps the
 * raw output, and every file of the job folder is private. The risk scan
 * knows inflected verbs ("Continue deploying to prod?").
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../helpers/cli.js';
import { testScopes, sr } from '../helpers/daemon.js';

const scope = testScopes();

const SOON = 15_000;

/** Looks like nothing the patterns know: only the job's env says it is a secret. */
const API_KEY = 'q7Wz-plain-looking-93';
/** A non-secret name, long enough to be redacted literally too. */
const DSN = 'db.internal:5432/orders';
/** Too short to redact literally (README: values of 6+ characters, 4+ for secret-looking names). */
const SHORT = 'true';

const webhookConfig = (url: string) => ['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${url}" }`, ''].join('\n');

/** A show/board document as text without the env entries themselves (non-secret names are shown as given). */
const textBesidesEnv = (shown: { job: { env: unknown } }) => JSON.stringify({ ...shown, job: { ...shown.job, env: null } });

function daemonLogText(state: string): string {
  return readdirSync(state)
    .filter((f) => /^daemon\.\d+\.log$/.test(f))
    .map((f) => readFileSync(join(state, f), 'utf8'))
    .join('');
}

describe('daemon: a job\'s own --env values are secrets', () => {
  it('never in pages, board, show, logs, evidence or summary.json (human and --json); only the recording keeps them; the job folder is 0700 with 0600 files', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const state = h.stateDir(webhookConfig(srv.url('/hook')));
    const d = await h.daemon(state);
    const script = 'echo "key is $API_KEY"; echo "dsn is $DSN"; echo "debug is $DEBUG_ON"; read -p "Continue? [y/N] " a; echo "got:$a arg:$1"';
    const sub = await d.ns('submit', [
      '--name', 'leaky', '--json',
      '--env', `API_KEY=${API_KEY}`, '--env', `DSN=${DSN}`, '--env', `DEBUG_ON=${SHORT}`,
      '--', 'bash', '-c', script, 'bash', API_KEY,
    ]);
    expect(sub.code, sub.stderr).toBe(0);
    // submit --json answers with the record: masked too.
    expect(sub.stdout).not.toContain(API_KEY);
    expect(JSON.parse(sub.stdout).env).toMatchObject({ API_KEY: '***', DSN, DEBUG_ON: SHORT });

    await d.waitState('leaky', 'blocked', 'prompt', SOON);
    const [hit] = await srv.waitHits('/hook', 1, SOON);
    const page = JSON.parse(hit!.body) as { screen: string[]; kind: string };
    expect(page.kind).toBe('prompt');
    expect(page.screen).toContain('key is [redacted]');
    expect(page.screen).toContain('dsn is [redacted]');
    expect(page.screen).toContain(`debug is ${SHORT}`);
    expect(hit!.body).not.toContain(API_KEY);
    expect(hit!.body).not.toContain(DSN);

    // board: env entries whose names look secret are ***; the command's copy of the value is redacted.
    const board = await d.boardCli();
    expect(board[0]!.env).toEqual({ API_KEY: '***', DSN, DEBUG_ON: SHORT });
    expect(board[0]!.command.at(-1)).toBe('[redacted]');
    const boardHuman = await d.ns('board');
    expect(boardHuman.code, boardHuman.stderr).toBe(0);
    expect(boardHuman.stdout).toContain('leaky');
    expect(textBesidesEnv({ job: board[0]! })).not.toContain(DSN);

    // show --json while it runs: screen, evidence, pages, record.
    const live = await d.showCli('leaky');
    expect(live.job.env.API_KEY).toBe('***');
    expect(live.screen).toContain('key is [redacted]');
    expect(live.evidence[0]).toMatchObject({ type: 'prompt', decision: 'escalate' });
    expect(live.pages).toHaveLength(1);
    expect(JSON.stringify(live)).not.toContain(API_KEY);
    const liveText = textBesidesEnv(live);
    expect(liveText).not.toContain(API_KEY);
    expect(liveText).not.toContain(DSN);
    const liveHuman = await d.ns('show', ['leaky']);
    expect(liveHuman.code, liveHuman.stderr).toBe(0);
    expect(liveHuman.stdout).toContain('key is [redacted]');
    for (const out of [boardHuman.stdout, liveHuman.stdout]) {
      expect(out).not.toContain(API_KEY);
      expect(out).not.toContain(DSN);
    }

    // Answered: the job prints the value again (its argument), ends; show reads summary.json's final screen.
    const ans = await d.ns('answer', ['leaky', 'y']);
    expect(ans.code, ans.stderr).toBe(0);
    const done = await d.waitState('leaky', 'done', 'exit', SOON);
    const shown = await d.showCli('leaky');
    expect(shown.screen).toContain('got:y arg:[redacted]');
    expect(JSON.stringify(shown)).not.toContain(API_KEY);
    expect(textBesidesEnv(shown)).not.toContain(DSN);
    const doneHuman = await d.ns('show', ['leaky']);
    expect(doneHuman.stdout).toContain('got:y arg:[redacted]');
    expect(doneHuman.stdout).not.toContain(API_KEY);
    await d.stop();

    const paths = done.paths!;
    const summary = readFileSync(paths.summary, 'utf8');
    expect(summary).toContain('key is [redacted]');
    expect(JSON.parse(summary).command.at(-1)).toBe('[redacted]');
    const log = readFileSync(paths.log, 'utf8');
    expect(readJsonl(paths.log).some((l) => l.msg === 'job started')).toBe(true);
    const evidence = readFileSync(paths.evidence, 'utf8');
    expect(evidence).toContain('key is [redacted]');
    const daemonLog = daemonLogText(state);
    expect(daemonLog).toContain('job started');
    for (const [what, text] of [['summary.json', summary], ['log.jsonl', log], ['evidence.jsonl', evidence], ['daemon log', daemonLog]] as const) {
      expect(text, what).not.toContain(API_KEY);
      expect(text, what).not.toContain(DSN);
    }
    // The recording is the raw evidence: it keeps what the job printed.
    expect(readFileSync(paths.recording, 'utf8')).toContain(API_KEY);

    // Private: the folder 0700, every file in it 0600.
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(paths.dir);
    expect(files).toEqual(expect.arrayContaining(['recording.cast', 'events.jsonl', 'log.jsonl', 'evidence.jsonl', 'summary.json']));
    for (const f of files) expect(`${f} ${(statSync(join(paths.dir, f)).mode & 0o777).toString(8)}`).toBe(`${f} 600`);
  }, 60_000);
});

describe('daemon: the risk scan knows inflected verbs', () => {
  it('"Continue deploying to prod? [y/N]" blocks as destructive, is paged as a prompt and is never answered', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const d = await h.daemon(h.stateDir(webhookConfig(srv.url('/hook'))));
    await d.submit('deployer', ['bash', '-c', 'read -p "Continue deploying to prod? [y/N] " a; echo "got:$a"']);
    const rec = await d.waitState('deployer', 'blocked', 'prompt', SOON);
    expect(rec.reason).toEqual({ code: 'prompt', rule: 'generic-yes-no', class: 'destructive' });
    const [hit] = await srv.waitHits('/hook', 1, SOON);
    expect(JSON.parse(hit!.body)).toMatchObject({ kind: 'prompt', class: 'destructive', prompt: 'Continue deploying to prod? [y/N]' });
    const shown = await d.show('deployer');
    expect(shown.evidence).toHaveLength(1);
    expect(shown.evidence[0]).toMatchObject({ type: 'prompt', decision: 'escalate', layer: 'risk', class: 'destructive', answered_by: null, keys: [] });
    // Nothing answers it: a few more ticks and it is still blocked, with the one decision only.
    await new Promise((r) => setTimeout(r, 2_500));
    const later = await d.show('deployer');
    expect(sr(later.job)).toBe('blocked/prompt');
    expect(later.evidence).toHaveLength(1);
    expect(later.screen).not.toContain('got:');
  }, 60_000);
});
