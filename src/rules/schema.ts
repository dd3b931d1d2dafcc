/** The shape of a rule file in rules/. Documented in README.md ("Rules"). */
import { z } from 'zod';

export const PROMPT_CLASSES = ['dependency', 'destructive', 'permission', 'outbound', 'confirm', 'unknown', 'trust', 'secret', 'editor', 'pager', 'question'] as const;
export const ECOSYSTEMS = ['npm', 'pip', 'apt', 'cargo', 'gem', 'go'] as const;

const id = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected an id of lower-case letters, digits, . _ -');
const regex = z.string().min(1, 'expected a non-empty regular expression');
/** `<agent> <version>`: a version of an agent a rule was checked against (a verbatim screen or a note). */
export const CHECKED_ENTRY = /^([a-z0-9-]+) (\d+\.\d+(?:\.\d+)?)$/;
const checked = z.array(
  z.string().regex(CHECKED_ENTRY, 'expected "<agent> <version>" such as "claude-code 2.1.112" (agent: lower-case letters, digits, -; version: N.N or N.N.N)'),
);
const flags = z.string().regex(/^[imsu]*$/, 'expected regex flags from i, m, s, u').optional();

const patternFields = {
  id,
  match: regex,
  flags,
  cursor: z.enum(['same-line', 'near', 'any']).default('same-line'),
  lines: z.number().int().min(1).max(200).default(4),
  description: z.string().optional(),
};

/** How to read what a prompt is about: the packages it lists, the command it asks to run. */
const extract = z
  .object({
    packages: z
      .object({
        ecosystem: z.enum(ECOSYSTEMS),
        /** The list starts on the line after the first line matching this. */
        after: regex,
        /** Each list line; named groups `name` and `version`, or `names` (space-separated). */
        item: regex,
      })
      .strict()
      .optional(),
    /** Regexes with a named group `cmd`: the command an agent's dialog asks to run (first hit wins). */
    command: z.array(regex).default([]),
  })
  .strict();

export const promptEntry = z
  .object({
    ...patternFields,
    class: z.enum(PROMPT_CLASSES),
    answer: z.array(z.string()).min(1, 'expected at least one answer key'),
    decline: z.array(z.string()).default([]),
    programs: z.array(z.string()).default([]),
    generic: z.boolean().default(false),
    extract: extract.optional(),
    /** Agent versions whose real dialog this rule was checked against (src/rules/coverage.ts). */
    checked: checked.default([]),
  })
  .strict();

export const questionEntry = z.object(patternFields).strict();

/**
 * A program parked in a watch mode: done with its work, waiting for keys it
 * will never get. `programs[0]` names it in the page; `checked` lists the
 * versions whose real screen the pattern was checked against.
 */
export const parkedEntry = z
  .object({ ...patternFields, programs: z.array(z.string()).min(1, 'expected the program it names'), checked: checked.default([]) })
  .strict();

/** A pattern that makes any prompt destructive, whatever its rule said. */
export const riskEntry = z.object({ id, match: regex, flags, description: z.string().optional() }).strict();

export const ruleFile = z
  .object({
    version: z.literal(1),
    prompts: z.array(promptEntry).default([]),
    questions: z.array(questionEntry).default([]),
    parked: z.array(parkedEntry).default([]),
    risks: z.array(riskEntry).default([]),
  })
  .strict();

export type RuleFileData = z.infer<typeof ruleFile>;
export type PromptEntry = z.infer<typeof promptEntry>;
export type ParkedEntry = z.infer<typeof parkedEntry>;
