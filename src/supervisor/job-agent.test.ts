import { appendFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { answerLine, claudeSession, removeTemps, tempDir, userLine } from '../../test/fixtures/claude-session.js';
import { until } from '../../test/helpers/until.js';
import { defaultProfile } from '../../test/fixtures/trajectories/load.js';
import { TURN_END_QUIET_MS } from './agent-watch.js';
import { endsOnTurnEnd, JobAgent, type AgentHost } from './job-agent.js';

const agents: JobAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.watch.close()));
  agents.forEach((a) => a.dispose());
  removeTemps();
});

/** A job whose task is on its command line, held in `state` for `reason` by the watchdog; records what the agent side did to it. */
function hostedAgent(state: string, reason: string) {
  const { transcript, job } = claudeSession('please summarise the README');
  const stops: string[] = [];
  const host: AgentHost = {
    id: 'j-1',
    dir: tempDir(),
    name: 'summary',
    argv: job.argv,
    cwd: job.cwd,
    startedAt: job.startedAt,
    now: () => Date.now(),
    marker: () => undefined,
    toolEvent: () => undefined,
    action: () => undefined,
    block: () => false,
    sendKey: () => undefined,
    verdict: () => undefined,
    sendText: async () => undefined,
    stop: (cause) => void stops.push(cause),
    state: () => state,
    reason: () => reason,
    screen: () => [],
    log: () => undefined,
  };
  const agent = new JobAgent(host, 'claude', defaultProfile, job.env, job.pid);
  agents.push(agent);
  return { agent, transcript, stops };
}

describe("JobAgent: the agent's finished turn", () => {
  it('ends a job judged hung while the turn end was confirmed (the quiet was the agent at its input), and leaves a job blocked on a prompt to a person', async () => {
    const hung = hostedAgent('blocked', 'hung');
    const prompt = hostedAgent('blocked', 'prompt');
    for (const a of [hung, prompt]) {
      await a.agent.watch.artefactsAtStart;
      appendFileSync(a.transcript, `${userLine('please summarise the README')}\n${answerLine('m1', 'The README describes a small CLI.')}\n`);
    }
    await until(() => hung.stops.length > 0, TURN_END_QUIET_MS + 5_000, 'the hung job to stop');
    expect(hung.stops).toEqual(['turn-ended']);
    await new Promise((r) => setTimeout(r, 500));
    expect(prompt.stops).toEqual([]);
  }, 20_000);

  it('a running job ends on it; a queued, done or otherwise blocked one does not', () => {
    expect(endsOnTurnEnd('running', 'output')).toBe(true);
    expect(endsOnTurnEnd('blocked', 'hung')).toBe(true);
    for (const reason of ['prompt', 'unknown-prompt', 'unknown-dialog', 'agent-waiting', 'parked', 'probe:loop']) expect(endsOnTurnEnd('blocked', reason)).toBe(false);
    expect(endsOnTurnEnd('done', 'exit')).toBe(false);
    expect(endsOnTurnEnd('queued', 'submitted')).toBe(false);
  });
});
