/**
 * Which agent versions the prompt rules were checked against (`checked:`),
 * and whether a job's agent is newer than all of them: agent dialogs change
 * between releases, and a dialog no rule recognises is escalated as an
 * unknown prompt instead of being answered, so a person should know.
 */
import type { AgentKind } from '../core/agent-events.js';
import type { AgentVersion, PromptRule } from '../core/prompt-match.js';

/** The name rules use for each agent kind (`checked: [claude-code 2.1.112]`). */
export const RULE_AGENT: Readonly<Record<AgentKind, string | undefined>> = {
  claude: 'claude-code',
  codex: 'codex',
  gemini: 'gemini',
  generic: undefined,
};

/** What `show` and the job's log say about the agent's version. */
export interface RulesCoverage {
  readonly agent: string;
  /** null when the version could not be read (then covered is null too). */
  readonly version: string | null;
  readonly checked: readonly string[];
  readonly covered: boolean | null;
  readonly note: string;
}

const parts = (v: string) => v.split('.').map(Number);

/**
 * a compared with b over b's parts only: a `checked` entry of 0.61 stands
 * for the 0.61 series (the screen did not say which patch), so 0.61.4 is
 * not newer than it. Returns <0, 0 or >0.
 */
export function compareToChecked(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < y.length; i++) {
    const d = (x[i] ?? 0) - y[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Versions of `agent` named by the rules, oldest first, each once. */
export function checkedVersions(rules: readonly PromptRule[], agent: string): string[] {
  const versions = new Set(rules.flatMap((r) => (r.checked ?? []).filter((c) => c.agent === agent).map((c) => c.version)));
  return [...versions].sort((a, b) => compareToChecked(a, b) || a.length - b.length);
}

/** Coverage of one agent version: covered unless it is newer than every checked version (older ones are not second-guessed). */
export function coverageOf(rules: readonly PromptRule[], agent: string, version: string): RulesCoverage {
  const checked = checkedVersions(rules, agent);
  const covered = checked.some((c) => compareToChecked(version, c) <= 0);
  const newest = checked.at(-1);
  const note = covered
    ? `rules checked against ${agent} ${checked.join(', ')}`
    : `rules not checked against ${agent} ${version}${newest ? ` (newest checked: ${newest})` : ''}; dialogs no rule names will be escalated`;
  return { agent, version, checked, covered, note };
}

/** When the version could not be read: no warning, but `show` says why there is no answer. */
export function unknownCoverage(rules: readonly PromptRule[], agent: string, why: string): RulesCoverage {
  return { agent, version: null, checked: checkedVersions(rules, agent), covered: null, note: `could not read the ${agent} version: ${why}` };
}

/**
 * Agent programs by command name, and the name their rules' `checked:` use.
 * `rules check` lists the agent rules that name no checked version (never
 * compared with a real screen); a job whose command is one of these has its
 * version held against its rules even without a transcript adapter.
 */
export const AGENT_PROGRAMS: Readonly<Record<string, string>> = {
  claude: 'claude-code',
  codex: 'codex',
  gemini: 'gemini',
  copilot: 'copilot',
  opencode: 'opencode',
  qwen: 'qwen',
  'cursor-agent': 'cursor-agent',
  kimi: 'kimi',
};

/** `claude-code 2.1.112, 2.1.332 (2 rules); codex 0.171.0 (1 rule)` for `rules check`, plus the agent rules that name none. */
export function coverageSummary(rules: readonly PromptRule[]): { coverage: string; unchecked: string[] } {
  const agents = [...new Set(rules.flatMap((r) => (r.checked ?? []).map((c: AgentVersion) => c.agent)))].sort();
  const coverage = agents.map((agent) => {
    const n = rules.filter((r) => r.checked?.some((c) => c.agent === agent)).length;
    return `${agent} ${checkedVersions(rules, agent).join(', ')} (${n} rule${n === 1 ? '' : 's'})`;
  });
  const unchecked = rules.filter((r) => !r.checked?.length && r.programs.some((p) => Object.hasOwn(AGENT_PROGRAMS, p))).map((r) => r.id);
  return { coverage: coverage.join('; ') || 'none', unchecked };
}
