/** The shape of a rule file in rules/. Documented in README.md ("Rules"). */
import { z } from 'zod';

export const PROMPT_CLASSES = ['dependency', 'destructive', 'permission', 'outbound', 'confirm', 'unknown'] as const;

const id = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected an id of lower-case letters, digits, . _ -');

const patternFields = {
  id,
  match: z.string().min(1, 'expected a non-empty regular expression'),
  flags: z.string().regex(/^[imsu]*$/, 'expected regex flags from i, m, s, u').optional(),
  cursor: z.enum(['same-line', 'near', 'any']).default('same-line'),
  lines: z.number().int().min(1).max(200).default(4),
  description: z.string().optional(),
};

export const promptEntry = z
  .object({
    ...patternFields,
    class: z.enum(PROMPT_CLASSES),
    answer: z.array(z.string()).min(1, 'expected at least one answer key'),
    decline: z.array(z.string()).default([]),
    programs: z.array(z.string()).default([]),
    generic: z.boolean().default(false),
  })
  .strict();

export const questionEntry = z.object(patternFields).strict();

export const ruleFile = z
  .object({
    version: z.literal(1),
    prompts: z.array(promptEntry).default([]),
    questions: z.array(questionEntry).default([]),
  })
  .strict();

export type RuleFileData = z.infer<typeof ruleFile>;
