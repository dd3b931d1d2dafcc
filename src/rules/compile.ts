/** Turns validated rule-file entries into runtime rules; every regex error names its line. */
import type { AgentVersion, PromptExtract, PromptRule, RiskPattern } from '../core/prompt-match.js';
import { keySequence } from '../core/keys.js';
import { InputError } from '../util/errors.js';
import { neededText } from './needed-text.js';
import { CHECKED_ENTRY, type ParkedEntry, type PromptEntry } from './schema.js';
import { lineAt, type YamlSource } from './yaml-source.js';

type Path = (string | number)[];

export function compileRegex(src: YamlSource, path: Path, pattern: string, flags = ''): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (cause) {
    throw new InputError(`${path.join('.')} is not a valid regular expression: ${(cause as Error).message}`, {
      file: src.file,
      line: lineAt(src, path),
      cause,
    });
  }
}

function requireGroup(src: YamlSource, path: Path, re: RegExp, groups: string[]): void {
  const probe = new RegExp(`${re.source}|(?<__probe>)`, re.flags);
  const names = Object.keys(probe.exec('')?.groups ?? {});
  if (!groups.some((g) => names.includes(g))) {
    throw new InputError(`${path.join('.')} needs a named group ${groups.map((g) => `(?<${g}>…)`).join(' or ')}`, {
      file: src.file,
      line: lineAt(src, path),
    });
  }
}

function checkKeys(src: YamlSource, path: Path, keys: readonly string[]): void {
  keys.forEach((k, i) => {
    try {
      keySequence(k);
    } catch (cause) {
      throw new InputError((cause as Error).message, { file: src.file, line: lineAt(src, [...path, i]), cause });
    }
  });
}

function compileExtract(src: YamlSource, path: Path, e: NonNullable<PromptEntry['extract']>): PromptExtract {
  const command = e.command.map((c, i) => {
    const re = compileRegex(src, [...path, 'command', i], c);
    requireGroup(src, [...path, 'command', i], re, ['cmd']);
    return re;
  });
  if (!e.packages) return { command };
  const p = e.packages;
  const item = compileRegex(src, [...path, 'packages', 'item'], p.item);
  requireGroup(src, [...path, 'packages', 'item'], item, ['name', 'names']);
  return { command, packages: { ecosystem: p.ecosystem, after: compileRegex(src, [...path, 'packages', 'after'], p.after), item } };
}

type QuestionLike = Omit<PromptEntry, 'class' | 'answer' | 'decline' | 'programs' | 'generic' | 'extract' | 'checked'>;

/** The schema already matched CHECKED_ENTRY, so the groups are there. */
function parseChecked(entry: string): AgentVersion {
  const [, agent, version] = CHECKED_ENTRY.exec(entry)!;
  return { agent: agent!, version: version! };
}

export function compilePrompt(src: YamlSource, path: Path, e: PromptEntry): PromptRule {
  checkKeys(src, [...path, 'answer'], e.answer);
  checkKeys(src, [...path, 'decline'], e.decline);
  return {
    ...base(src, path, e),
    class: e.class,
    answer: e.answer,
    decline: e.decline,
    programs: e.programs,
    generic: e.generic,
    checked: e.checked.map(parseChecked),
    ...(e.extract ? { extract: compileExtract(src, [...path, 'extract'], e.extract) } : {}),
  };
}

export function compileQuestion(src: YamlSource, path: Path, e: QuestionLike): PromptRule {
  return { ...base(src, path, e), class: 'unknown', answer: [], decline: [], programs: [], generic: true };
}

/** Never answered: a parked program is left to a person (cancel, send q), so it has no keys. */
export function compileParked(src: YamlSource, path: Path, e: ParkedEntry): PromptRule {
  return { ...base(src, path, e), class: 'unknown', answer: [], decline: [], programs: e.programs, generic: false, checked: e.checked.map(parseChecked) };
}

function base(src: YamlSource, path: Path, e: QuestionLike) {
  const match = compileRegex(src, [...path, 'match'], e.match, e.flags ?? '');
  const needs = neededText(match);
  return {
    id: e.id,
    match,
    ...(needs ? { needs } : {}),
    cursor: e.cursor,
    lines: e.lines,
    ...(e.description === undefined ? {} : { description: e.description }),
    source: { file: src.file, line: lineAt(src, path) },
  };
}

export function compileRisk(src: YamlSource, path: Path, e: { id: string; match: string; flags?: string | undefined; description?: string | undefined }): RiskPattern {
  return {
    id: e.id,
    match: compileRegex(src, [...path, 'match'], e.match, e.flags ?? ''),
    ...(e.description === undefined ? {} : { description: e.description }),
    source: { file: src.file, line: lineAt(src, path) },
  };
}
