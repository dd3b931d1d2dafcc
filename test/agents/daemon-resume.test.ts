/**
 * Issue 10.4, resume, with the REAL Claude Code CLI offline under the
 * daemon: a refused claim blocks the job, it is cancelled, `nightshift
 * resume` starts Claude again with `--resume <session>` (which appends to the
 * same session file). The new job follows that file from where the old job
 * stopped: no old verdict again, the old steps not counted against its step
 * budget, each verdict once in `stats`, and its first message to the model
 * says that the claim was refused and why. Needs a build first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJsonl } from '../helpers/cli.js';
import { sr, testScopes, waitUntil } from '../helpers/daemon.js';
import { skipClaudeTests } from './claude-env.js';
import { bash, claudeArgv, claudeHome, jobEnv, project } from './claude-project.js';
import { lastUserText, startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from './fake-anthropic.js';

const scope = testScopes();
const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const START = 60_000;
const SOON = 20_000;
const CLAIM = 'I created the file notes.md.';
/** The claiming sentence as the probe quotes it (without its full stop). */
const CLAIMED = 'I created the file notes.md';
const isMain = (r: RecordedRequest) => r.step !== undefined;

describe.skipIf(skipClaudeTests())('issue 10.4: resume after a refused claim, real Claude Code under the daemon', () => {
  it('the resumed job follows the session past the old job, repeats no verdict, gets its steps left + granted, and is told its claim was refused', async (ctx) => {
    // Two reads, then a claim with no write: refused. Resumed, told so, it writes the file for real.
    const server = await startFakeAnthropic(
      [bash('cat README.md'), bash('ls'), { text: CLAIM }, { text: 'Created notes.md.' }],
      [{ when: /claim of completion was refused/, step: bash('touch notes.md') }],
    );
    servers.push(server);
    const h = claudeHome(project({ git: true }), server.url);
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), [], jobEnv(h));
    await d.submit('claim', [...claudeArgv(), 'please create notes.md with a summary of the README'], ['--agent', 'claude', '--cwd', h.project, '--max-steps', '2']);
    await d.waitState('claim', 'blocked', 'probe:fake-completion', START);
    expect((await d.ns('cancel', ['claim'], { NIGHTSHIFT_USER: 'ann' })).code).toBe(0);
    const old = await d.waitState('claim', 'done', 'cancelled', SOON);
    expect(readJsonl(old.paths!.evidence).filter((e) => e.type === 'person')).toMatchObject([{ action: 'cancel', by: 'human:ann' }]);
    const cardFile = join(old.paths!.dir, 'resume.json');
    await waitUntil(() => existsSync(cardFile) || undefined, SOON, 'the resume card');

    // The card says why: the refused claim, in stopped_by, refused_claim and Open (json and md).
    const card = JSON.parse(readFileSync(cardFile, 'utf8'));
    expect(card.stopped_by).toMatchObject({ probe: 'fake-completion', response: 'escalate' });
    expect(card.refused_claim).toMatchObject({ claim: CLAIMED, answer: CLAIM });
    expect(card.refused_claim.why).toContain('made no successful write');
    expect(card.open[0]).toContain(`refused claim of completion: "${CLAIMED}"`);
    expect(card.transcript.lines).toBeGreaterThan(0);
    expect(card).toMatchObject({ budget_used: { steps: 2 }, step_budget: 2 });
    expect(readFileSync(join(old.paths!.dir, 'resume.md'), 'utf8')).toMatch(/## Open\n- refused claim of completion: "I created the file notes\.md"/);

    // Two of two steps used: none left unless granted.
    const refused = await d.ns('resume', ['claim']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('grant more with --grant-steps');
    const before = server.requests.filter(isMain).length;
    const resumed = await d.ns('resume', ['claim', '--grant-steps', '1', '--json'], { NIGHTSHIFT_USER: 'bob' });
    expect(resumed.code, resumed.stderr).toBe(0);
    const rec = JSON.parse(resumed.stdout);
    expect(rec.budgets.steps).toBe(1);
    expect(rec.resume_from).toMatchObject({ transcript: card.transcript.path, lines: card.transcript.lines, goal: card.goal });

    // Not stopped at once by the old steps or the old verdict: it works and ends a success.
    const done = await d.waitJob(rec.name, (j) => j.state === 'done', START, 'done');
    expect(sr(done)).toBe('done/turn-ended');
    expect(existsSync(join(h.project, 'notes.md'))).toBe(true);
    const first = server.requests.filter(isMain)[before]!;
    const said = lastUserText(first.body) ?? '';
    expect(said).toContain(`Your claim of completion was refused: you said "${CLAIMED}"`);
    expect(said).toContain('made no successful write');

    // Its evidence has no verdict of the old job's lines; stats counts the refused claim once.
    const oldLines = card.transcript.lines as number;
    const lineOf = (id: string) => Number(id.split(':').at(-2));
    const verdicts = readJsonl(done.paths!.evidence).filter((e) => e.type === 'verdict');
    expect(verdicts.map((v) => v.probe)).not.toContain('fake-completion');
    expect(readJsonl(done.paths!.evidence).filter((e) => e.type === 'person')).toMatchObject([{ action: 'resume', by: 'human:bob', from: old.id }]);
    for (const v of verdicts) for (const id of v.evidence as string[]) expect(lineOf(id)).toBeGreaterThan(oldLines);
    const stats = JSON.parse((await d.ns('stats', ['--json'])).stdout);
    expect(stats.by_probe['fake-completion']).toBe(1);
  }, 180_000);
});
