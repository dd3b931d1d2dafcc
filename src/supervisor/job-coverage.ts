/** A job's agent version held against the rules' `checked:` versions (src/rules/coverage.ts). */
import type { AgentKind } from '../core/agent-events.js';
import type { PromptRule } from '../core/prompt-match.js';
import { basename } from 'node:path';
import { AGENT_PROGRAMS, coverageOf, RULE_AGENT, unknownCoverage, type RulesCoverage } from '../rules/coverage.js';
import { describeError } from '../util/errors.js';
import { agentVersion } from '../adapters/agent-version.js';
import type { JobSpec } from './job-spec.js';

/** Never rejects: an unreadable version is reported in the coverage, not thrown. undefined for a plain program. */
export async function jobCoverage(kind: AgentKind, spec: JobSpec, rules: readonly PromptRule[]): Promise<RulesCoverage | undefined> {
  // Copilot, opencode, Qwen Code…: no transcript adapter, but rules that name the versions they were checked against.
  const agent = RULE_AGENT[kind] ?? (Object.hasOwn(AGENT_PROGRAMS, basename(spec.command)) ? AGENT_PROGRAMS[basename(spec.command)] : undefined);
  if (!agent) return undefined;
  try {
    const version = await agentVersion([spec.command, ...spec.args], { env: spec.env, cwd: spec.cwd });
    return coverageOf(rules, agent, version);
  } catch (e) {
    return unknownCoverage(rules, agent, describeError(e));
  }
}
