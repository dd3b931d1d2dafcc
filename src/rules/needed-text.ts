/**
 * The texts a pattern cannot match without: a set of strings such that every
 * match contains at least one of them (`Do you want to ` for Claude's
 * permission rule, `y/n` or `Y/n` or … for the generic one). The watchdog
 * matches every prompt rule at every look at a screen that changed; one scan
 * of the screen for all the rules' texts together rules out most of them at
 * once (core/prompt-needs.ts), where each regex would scan the screen again.
 *
 * Sound, not complete: a part of the pattern that may match without a fixed
 * text (a class, `\s`, an optional or empty branch, a back-reference, a
 * look-around) adds nothing, and a pattern whose every branch is like that
 * has no needed text: it is matched at every look. A pattern that ignores
 * case has its texts looked for the same way (NeededText.fold).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AST, RegExpParser } from '@eslint-community/regexpp';
import type { NeededText } from '../core/prompt-needs.js';
import { packagePath } from '../util/package.js';

/** The shipped patterns' texts, found when the package is built: loading and running the parser cost a `run` 15–30 ms at its start. */
export const NEEDED_TEXTS_TABLE = ['dist', 'src', 'rules', 'needed-texts.json'] as const;

let table: ReadonlyMap<string, NeededText | null> | undefined;
let parser: RegExpParser | undefined;

/** Texts one of which every match of `re` contains, compared as `re` compares; undefined when no such set is known. */
export function neededText(re: RegExp): NeededText | undefined {
  const known = shippedTable().get(keyOf(re));
  if (known !== undefined) return known ?? undefined;
  return fromPattern(re);
}

/** The table the build writes: the texts of every pattern in `patterns`, by flags and source. */
export function neededTextTable(patterns: readonly RegExp[]): Record<string, NeededText | null> {
  return Object.fromEntries(patterns.map((re) => [keyOf(re), fromPattern(re) ?? null]));
}

const keyOf = (re: RegExp) => `${re.flags}/${re.source}`;

function shippedTable(): ReadonlyMap<string, NeededText | null> {
  if (table) return table;
  // Run from the sources (tests), the code may be newer than the build's table.
  if (import.meta.url.endsWith('.ts')) return (table = new Map());
  try {
    table = new Map(Object.entries(JSON.parse(readFileSync(packagePath(...NEEDED_TEXTS_TABLE), 'utf8')) as Record<string, NeededText | null>));
  } catch {
    table = new Map();
  }
  return table;
}

function fromPattern(re: RegExp): NeededText | undefined {
  const unicode = re.flags.includes('u') || re.flags.includes('v');
  let pattern: AST.Pattern;
  try {
    pattern = regexParser().parsePattern(re.source, 0, re.source.length, { unicode: re.flags.includes('u'), unicodeSets: re.flags.includes('v') });
  } catch {
    return undefined;
  }
  const texts = anyOf(pattern.alternatives);
  if (!texts) return undefined;
  // Ignoring case, a text is looked for with the pattern's own folding (Unicode's under u and v).
  return { texts, fold: re.flags.includes('i') ? (unicode ? 'iu' : 'i') : '' };
}

type Needs = readonly string[] | null;

/** A match of one of the branches contains a text of that branch's set: the union, if every branch has one. */
function anyOf(branches: readonly AST.Alternative[]): Needs {
  const out = new Set<string>();
  for (const b of branches) {
    const needs = inSequence(b.elements);
    if (!needs) return null;
    for (const t of needs) out.add(t);
  }
  return [...out];
}

/**
 * Every element of a sequence matches, so any one element's set will do, and
 * so will a run of plain characters next to each other (one text): the
 * longest shortest text is taken, the set that rules out the most screens.
 */
function inSequence(elements: readonly AST.Element[]): Needs {
  let best: Needs = null;
  let run = '';
  const consider = (needs: Needs) => {
    if (needs && selectivity(needs) > selectivity(best)) best = needs;
  };
  for (const e of elements) {
    if (e.type === 'Character') {
      run += String.fromCodePoint(e.value);
      continue;
    }
    if (run !== '') consider([run]);
    run = '';
    consider(ofElement(e));
  }
  if (run !== '') consider([run]);
  return best;
}

function ofElement(e: AST.Element): Needs {
  switch (e.type) {
    case 'Character':
      return [String.fromCodePoint(e.value)];
    case 'CapturingGroup':
      return anyOf(e.alternatives);
    case 'Group':
      // Modifiers (`(?i:…)`) may turn case folding on inside the group.
      return e.modifiers ? null : anyOf(e.alternatives);
    case 'Quantifier':
      return e.min >= 1 ? ofElement(e.element) : null;
    default:
      // Classes, sets, assertions, look-arounds and back-references match without a fixed text.
      return null;
  }
}

/** Loaded on first use: with the build's table, a process that loads only the shipped rules never needs it. */
function regexParser(): RegExpParser {
  if (!parser) {
    const { RegExpParser: Parser } = createRequire(import.meta.url)('@eslint-community/regexpp') as typeof import('@eslint-community/regexpp');
    parser = new Parser({ ecmaVersion: 2024 });
  }
  return parser;
}

function selectivity(needs: Needs): number {
  if (!needs || needs.length === 0) return -Infinity;
  return Math.min(...needs.map((t) => t.length)) * 1_000 - needs.length;
}
