/**
 * Everything a job decides with: the prompt/question/risk rules and the
 * auto-answer policy, loaded together so a reload swaps all or nothing.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY_POLICY, type Policy } from '../responder/policy.js';
import { loadRules, type RuleSet } from './load.js';
import { loadPolicy } from './policy-file.js';

export interface RuleBundle {
  readonly rules: RuleSet;
  readonly policy: Policy;
}

/** The policy used when none is named: `policy.yaml` in the rules folder, else one that answers nothing. */
export function defaultPolicyPath(rulesPath: string): string | null {
  const isDir = existsSync(rulesPath) && statSync(rulesPath).isDirectory();
  const candidate = isDir ? join(rulesPath, 'policy.yaml') : null;
  return candidate && existsSync(candidate) ? candidate : null;
}

export async function loadBundle(rulesPath: string, policyPath?: string | null): Promise<RuleBundle> {
  const rules = await loadRules(rulesPath);
  const file = policyPath === undefined ? defaultPolicyPath(rulesPath) : policyPath;
  const policy = file ? await loadPolicy(file) : EMPTY_POLICY;
  return { rules, policy };
}
