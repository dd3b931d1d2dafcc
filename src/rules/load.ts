/**
 * Loads prompt rules from a rules directory (every *.yaml, *.yml, *.json,
 * in name order) or a single file. Any problem is an InputError with the
 * file and line; nothing is half-loaded.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PromptRule, RiskPattern } from '../core/prompt-match.js';
import { InputError } from '../util/errors.js';
import { compileParked, compilePrompt, compileQuestion, compileRisk } from './compile.js';
import { ruleFile } from './schema.js';
import { readYaml } from './shipped-yaml.js';

export interface RuleSet {
  readonly prompts: readonly PromptRule[];
  /** Patterns that make a quiet screen's tail look like a question (unknown prompt). */
  readonly questions: readonly PromptRule[];
  /** Watch modes: a program done with its work that waits for keys it will never get (parked). */
  readonly parked: readonly PromptRule[];
  /** Risk verbs and patterns: a hit makes a prompt destructive. */
  readonly risks: readonly RiskPattern[];
  readonly files: readonly string[];
}

interface RuleParts {
  prompts: PromptRule[];
  questions: PromptRule[];
  parked: PromptRule[];
  risks: RiskPattern[];
}

/** Policy files share the rules folder but have their own loader (src/rules/policy-file.ts). */
export const isPolicyFile = (name: string) => /(^|\/)policy[^/]*\.(ya?ml|json)$/.test(name);

/** Probe profiles (src/probes/profiles-file.ts) share the folder too. */
export const isProbeFile = (name: string) => /(^|\/)probes\.(ya?ml|json)$/.test(name);

const RULE_EXT = /\.(ya?ml|json)$/;

export async function ruleFiles(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (cause) {
    throw new InputError(`rules path does not exist: ${path}`, { file: path, cause });
  }
  if (info.isFile()) return [path];
  const names = (await readdir(path)).filter((n) => RULE_EXT.test(n) && !isPolicyFile(n) && !isProbeFile(n)).sort();
  return names.map((n) => join(path, n));
}

export async function loadRules(path: string): Promise<RuleSet> {
  const files = await ruleFiles(path);
  const parts = [];
  for (const file of files) {
    parts.push(parseRuleFile(await readText(file), file));
  }
  return mergeRuleSets(parts, files);
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new InputError(`cannot read rule file: ${(cause as Error).message}`, { file, cause });
  }
}

function mergeRuleSets(parts: RuleParts[], files: string[]): RuleSet {
  const seen = new Map<string, { source: { file: string; line: number } }>();
  for (const rule of parts.flatMap((p) => [...p.prompts, ...p.questions, ...p.parked, ...p.risks])) {
    const prev = seen.get(rule.id);
    if (prev) {
      throw new InputError(`duplicate rule id "${rule.id}" (first defined at ${prev.source.file}:${prev.source.line})`, rule.source);
    }
    seen.set(rule.id, rule);
  }
  return {
    prompts: parts.flatMap((p) => p.prompts),
    questions: parts.flatMap((p) => p.questions),
    parked: parts.flatMap((p) => p.parked),
    risks: parts.flatMap((p) => p.risks),
    files,
  };
}

export function parseRuleFile(text: string, file: string): RuleParts {
  const { src, data } = readYaml(text, file, ruleFile, 'rules');
  return {
    prompts: data.prompts.map((e, i) => compilePrompt(src, ['prompts', i], e)),
    questions: data.questions.map((e, i) => compileQuestion(src, ['questions', i], e)),
    parked: data.parked.map((e, i) => compileParked(src, ['parked', i], e)),
    risks: data.risks.map((e, i) => compileRisk(src, ['risks', i], e)),
  };
}
