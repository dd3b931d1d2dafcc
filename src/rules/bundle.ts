/**
 * Everything a job decides with: the prompt/question/risk rules and the
 * auto-answer policy, loaded together so a reload swaps all or nothing.
 */
import { EMPTY_POLICY, type Policy } from '../responder/policy.js';
import { loadRules, type RuleSet } from './load.js';
import { loadPolicy } from './policy-file.js';
import { defaultPolicyPath } from './policy-path.js';

export { defaultPolicyPath };

export interface RuleBundle {
  readonly rules: RuleSet;
  readonly policy: Policy;
}

export async function loadBundle(rulesPath: string, policyPath?: string | null): Promise<RuleBundle> {
  const rules = await loadRules(rulesPath);
  const file = policyPath === undefined ? defaultPolicyPath(rulesPath) : policyPath;
  const policy = file ? await loadPolicy(file) : EMPTY_POLICY;
  return { rules, policy };
}
