/**
 * Loads rules/probes.yaml: probe profiles (thresholds per kind of job), the
 * tool contract (what each agent tool does) and the text patterns of the
 * announce and claim probes. Every problem is an InputError naming file:line;
 * nothing is half-loaded. The only file of src/probes/ that does I/O.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolRole } from '../core/agent-events.js';
import { readYaml } from '../rules/shipped-yaml.js';
import { lineAt, type YamlSource } from '../rules/yaml-source.js';
import { InputError } from '../util/errors.js';
import { DEFAULT_VERIFY_REMINDERS, DEFAULT_WRAP_UP, ON_ESCALATE, parseWrapUp, type CommandRule, type OnEscalate, type ProbeProfile, type ProbeRules, type Thresholds, type ToolPattern } from './types.js';

export const DEFAULT_PROFILE = 'default';

const ROLES = ['write', 'read', 'test', 'list', 'poll', 'shell', 'other'] as const satisfies readonly ToolRole[];

const count = (min: number) => z.number().int().min(min);
const regex = z.string().min(1, 'expected a non-empty regular expression');
// No g/y: a stateful regex would give different answers on the same text.
const flags = z.string().regex(/^[imsu]*$/, 'expected regex flags from i, m, s, u').optional();
const profileName = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected a name of lower-case letters, digits, . _ -');

const profileEntry = z
  .object({
    description: z.string().optional(),
    extends: profileName.optional(),
    window: count(2).optional(),
    repeat: count(2).optional(),
    fail_repeat: count(2).optional(),
    no_progress: count(2).optional(),
    alternation: count(3).optional(),
    max_steps: count(1).optional(),
    max_tokens: count(1).optional(),
    on_escalate: z.enum(ON_ESCALATE as [OnEscalate, ...OnEscalate[]]).optional(),
    // A bare number (85) is refused too: a share is written with its % sign, as on the command line.
    wrap_up: z
      .union([z.string(), z.number()])
      .refine((v) => {
        const share = typeof v === 'string' ? parseWrapUp(v) : undefined;
        return share === null || typeof share === 'number';
      }, 'expected a share of the budget from 1% to 99%, or off')
      .optional(),
    verify_reminders: z.number().int().min(0).max(5).optional(),
  })
  .strict();

const patternRule = z.object({ match: regex, flags, role: z.enum(ROLES), side_effect: z.boolean().default(false) }).strict();

const probeFile = z
  .object({
    version: z.literal(1),
    profiles: z.record(profileName, profileEntry),
    tools: z.record(z.string().min(1), z.enum(ROLES)).default({}),
    tool_patterns: z.array(patternRule).default([]),
    shell: z
      .object({ command_keys: z.array(z.string().min(1)).min(1), commands: z.array(patternRule).default([]) })
      .strict(),
    announce: z
      .object({
        max_chars: count(1).default(400),
        trailing_colon: z.boolean().default(true),
        english: z.array(regex).default([]),
        after_tools: z.array(regex).default([]),
        chinese: z.array(regex).default([]),
        except: z.array(regex).default([]),
      })
      .strict(),
    claims: z
      .object({ patterns: z.array(regex).min(1), checks: z.array(regex).default([]), passed: regex.optional(), negations: z.array(regex).default([]) })
      .strict(),
  })
  .strict();

type ProbeFile = z.infer<typeof probeFile>;
type ProfileEntry = z.infer<typeof profileEntry>;
type Path = (string | number)[];

export interface ProbeConfig {
  readonly file: string;
  readonly rules: ProbeRules;
  readonly profiles: ReadonlyMap<string, ProbeProfile>;
  /** A profile by name (default: `default`); an unknown name is an InputError. */
  profile(name?: string): ProbeProfile;
}

export async function loadProbeConfig(path: string): Promise<ProbeConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new InputError(`cannot read probe profiles: ${(cause as Error).message}`, { file: path, cause });
  }
  return parseProbeConfig(text, path);
}

export function parseProbeConfig(text: string, file: string): ProbeConfig {
  const { src, data } = readYaml(text, file, probeFile, 'probes');
  const rules = compileRules(src, data);
  const profiles = new Map<string, ProbeProfile>();
  for (const name of Object.keys(data.profiles)) {
    profiles.set(name, {
      name,
      rules,
      ...resolve(src, data.profiles, name, []),
      onEscalate: inherited(data.profiles, name, 'on_escalate') ?? 'auto',
      wrapUp: wrapUpOf(inherited(data.profiles, name, 'wrap_up')),
      verifyReminders: inherited(data.profiles, name, 'verify_reminders') ?? DEFAULT_VERIFY_REMINDERS,
    });
  }
  if (!profiles.has(DEFAULT_PROFILE)) {
    throw new InputError(`profiles: a "${DEFAULT_PROFILE}" profile is required`, { file, line: lineAt(src, ['profiles'], true) });
  }
  return {
    file,
    rules,
    profiles,
    profile(name = DEFAULT_PROFILE) {
      const p = profiles.get(name);
      if (p) return p;
      throw new InputError(`unknown probe profile "${name}"; known: ${[...profiles.keys()].join(', ')}`, { file });
    },
  };
}

const FIELDS = {
  window: 'window',
  repeat: 'repeat',
  failRepeat: 'fail_repeat',
  noProgress: 'no_progress',
  alternation: 'alternation',
  maxSteps: 'max_steps',
  maxTokens: 'max_tokens',
} as const satisfies Record<keyof Thresholds, keyof ProfileEntry>;

/** A profile's numbers with `extends` applied (the child's values win). */
function resolve(src: YamlSource, all: Record<string, ProfileEntry>, name: string, chain: string[]): Thresholds {
  const entry = all[name]!;
  const at = (key?: string) => ({ file: src.file, line: key ? lineAt(src, ['profiles', name, key]) : lineAt(src, ['profiles', name], true) });
  let base: Partial<Thresholds> = {};
  if (entry.extends !== undefined) {
    if (chain.includes(entry.extends) || entry.extends === name) {
      throw new InputError(`profiles.${name}.extends: profiles extend each other in a circle (${[...chain, name, entry.extends].join(' → ')})`, at('extends'));
    }
    if (!(entry.extends in all)) throw new InputError(`profiles.${name}.extends: no profile named "${entry.extends}"`, at('extends'));
    base = resolve(src, all, entry.extends, [...chain, name]);
  }
  const out: Partial<Record<keyof Thresholds, number>> = { ...base };
  for (const [field, key] of Object.entries(FIELDS) as [keyof Thresholds, keyof ProfileEntry][]) {
    const v = entry[key];
    if (typeof v === 'number') out[field] = v;
    if (out[field] === undefined) throw new InputError(`profiles.${name}: missing ${key} (set it or extend a profile that has it)`, at());
  }
  const t = out as Thresholds;
  if (t.repeat > t.window) throw new InputError(`profiles.${name}.repeat: ${t.repeat} repeats can never fit in a window of ${t.window}`, at('repeat'));
  return t;
}

/** The nearest value of `key` up the `extends` chain (resolve() has refused circles already). */
function inherited<K extends keyof ProfileEntry>(all: Record<string, ProfileEntry>, name: string, key: K): ProfileEntry[K] | undefined {
  for (let p: ProfileEntry | undefined = all[name]; p; p = p.extends ? all[p.extends] : undefined) if (p[key] !== undefined) return p[key];
  return undefined;
}

/** The schema has checked the text already. */
function wrapUpOf(text: string | number | undefined): number | null {
  if (text === undefined) return DEFAULT_WRAP_UP;
  const share = parseWrapUp(String(text));
  return typeof share === 'number' ? share : null;
}

function compileRules(src: YamlSource, d: ProbeFile): ProbeRules {
  const list = (path: Path, items: string[]) => items.map((p, i) => compileRegex(src, [...path, i], p, 'i'));
  return {
    tools: new Map(Object.entries(d.tools)),
    toolPatterns: d.tool_patterns.map((r, i): ToolPattern => compileRule(src, ['tool_patterns', i], r)),
    commandKeys: d.shell.command_keys,
    commands: d.shell.commands.map((r, i): CommandRule => compileRule(src, ['shell', 'commands', i], r)),
    announce: {
      maxChars: d.announce.max_chars,
      trailingColon: d.announce.trailing_colon,
      english: list(['announce', 'english'], d.announce.english),
      afterTools: list(['announce', 'after_tools'], d.announce.after_tools),
      chinese: list(['announce', 'chinese'], d.announce.chinese),
      except: list(['announce', 'except'], d.announce.except),
    },
    claims: {
      patterns: list(['claims', 'patterns'], d.claims.patterns),
      checks: list(['claims', 'checks'], d.claims.checks),
      passed: d.claims.passed === undefined ? null : compileRegex(src, ['claims', 'passed'], d.claims.passed, 'i'),
      negations: list(['claims', 'negations'], d.claims.negations),
    },
  };
}

function compileRule(src: YamlSource, path: Path, r: z.infer<typeof patternRule>): CommandRule {
  return { match: compileRegex(src, [...path, 'match'], r.match, r.flags ?? ''), role: r.role, sideEffect: r.side_effect };
}

function compileRegex(src: YamlSource, path: Path, pattern: string, flagText: string): RegExp {
  try {
    return new RegExp(pattern, flagText);
  } catch (cause) {
    throw new InputError(`${path.join('.')} is not a valid regular expression: ${(cause as Error).message}`, {
      file: src.file,
      line: lineAt(src, path),
      cause,
    });
  }
}
