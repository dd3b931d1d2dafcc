/** Which agent a job runs and with which probe profile (rules/probes.yaml). */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { detectAgent } from '../adapters/index.js';
import type { AgentKind } from '../core/agent-events.js';
import { loadProbeConfig } from '../probes/profiles-file.js';
import { parseWrapUp, type ProbeProfile } from '../probes/types.js';
import { InputError } from '../util/errors.js';

export function probesFile(rulesPath: string): string | null {
  const dir = existsSync(rulesPath) && statSync(rulesPath).isDirectory() ? rulesPath : null;
  const file = dir ? join(dir, 'probes.yaml') : null;
  return file && existsSync(file) ? file : null;
}

/**
 * The agent options for a LiveJob, or undefined for a plain program (the
 * generic event file already feeds the watchdog; transcripts need an agent),
 * unless `--agent generic` asks for the probes on its event file.
 */
export async function agentOption(
  argv: readonly string[],
  rulesPath: string,
  agent?: string,
  profile?: string,
  wrapUp?: string,
): Promise<{ kind: AgentKind; profile: ProbeProfile } | undefined> {
  const kind = detectAgent(argv, agent);
  // A plain program gets probes only when asked (`--agent generic`): its event file is then its transcript.
  if (kind === 'generic' && agent?.trim().toLowerCase() !== 'generic') return undefined;
  const file = probesFile(rulesPath);
  if (!file) return undefined;
  const p = (await loadProbeConfig(file)).profile(profile);
  return { kind, profile: wrapUp === undefined ? p : { ...p, wrapUp: wrapUpShare(wrapUp) } };
}

/** A job's own `--wrap-up` (`85%` or `off`), over its profile's. */
export function wrapUpShare(text: string): number | null {
  const share = parseWrapUp(text);
  if (share !== null && typeof share === 'object') throw new InputError(`--wrap-up "${text}": ${share.problem}`);
  return share;
}
