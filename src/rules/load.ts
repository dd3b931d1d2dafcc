/**
 * Loads prompt rules from a rules directory (every *.yaml, *.yml, *.json,
 * in name order) or a single file. Any problem is an InputError with the
 * file and line; nothing is half-loaded.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PromptRule } from '../core/prompt-match.js';
import { keySequence } from '../pty/keys.js';
import { InputError } from '../util/errors.js';
import { ruleFile } from './schema.js';
import { lineAt, parseYaml, validate, type YamlSource } from './yaml-source.js';

export interface RuleSet {
  readonly prompts: readonly PromptRule[];
  /** Patterns that make a quiet screen's tail look like a question (unknown prompt). */
  readonly questions: readonly PromptRule[];
  readonly files: readonly string[];
}

const RULE_EXT = /\.(ya?ml|json)$/;

export async function ruleFiles(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (cause) {
    throw new InputError(`rules path does not exist: ${path}`, { file: path, cause });
  }
  if (info.isFile()) return [path];
  const names = (await readdir(path)).filter((n) => RULE_EXT.test(n)).sort();
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

function mergeRuleSets(parts: { prompts: PromptRule[]; questions: PromptRule[] }[], files: string[]): RuleSet {
  const seen = new Map<string, PromptRule>();
  for (const rule of parts.flatMap((p) => [...p.prompts, ...p.questions])) {
    const prev = seen.get(rule.id);
    if (prev) {
      throw new InputError(`duplicate rule id "${rule.id}" (first defined at ${prev.source.file}:${prev.source.line})`, rule.source);
    }
    seen.set(rule.id, rule);
  }
  return { prompts: parts.flatMap((p) => p.prompts), questions: parts.flatMap((p) => p.questions), files };
}

export function parseRuleFile(text: string, file: string): { prompts: PromptRule[]; questions: PromptRule[] } {
  const src = parseYaml(text, file);
  const data = validate(src, ruleFile);
  const prompts = data.prompts.map((e, i) => compileEntry(src, ['prompts', i], e));
  const questions = data.questions.map((e, i) =>
    compileEntry(src, ['questions', i], { ...e, class: 'unknown' as const, answer: [], decline: [], programs: [], generic: true }),
  );
  return { prompts, questions };
}

type Entry = Omit<PromptRule, 'match' | 'source'> & { match: string; flags?: string | undefined };

function compileEntry(src: YamlSource, path: (string | number)[], e: Entry): PromptRule {
  const line = lineAt(src, path);
  const match = compileRegex(src, path, e.match, e.flags ?? '');
  checkKeys(src, [...path, 'answer'], e.answer);
  checkKeys(src, [...path, 'decline'], e.decline);
  return {
    id: e.id,
    class: e.class,
    match,
    cursor: e.cursor,
    lines: e.lines,
    answer: e.answer,
    decline: e.decline,
    programs: e.programs,
    generic: e.generic,
    ...(e.description === undefined ? {} : { description: e.description }),
    source: { file: src.file, line },
  };
}

function compileRegex(src: YamlSource, path: (string | number)[], pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (cause) {
    throw new InputError(`rule "match" is not a valid regular expression: ${(cause as Error).message}`, {
      file: src.file,
      line: lineAt(src, [...path, 'match']),
      cause,
    });
  }
}

function checkKeys(src: YamlSource, path: (string | number)[], keys: readonly string[]): void {
  keys.forEach((k, i) => {
    try {
      keySequence(k);
    } catch (cause) {
      throw new InputError((cause as Error).message, { file: src.file, line: lineAt(src, [...path, i]), cause });
    }
  });
}
