/**
 * Policy files (rules/policy.yaml, or a job's own): the allow-list of
 * dependency installs that may be answered without a person. Format in
 * README.md ("Policy"). A bad file is refused whole with file:line.
 */
import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { z } from 'zod';
import type { Policy } from '../responder/policy.js';
import { InputError } from '../util/errors.js';
import { parseDuration } from '../util/duration.js';
import { ECOSYSTEMS } from './schema.js';
import { readYaml } from './shipped-yaml.js';
import { lineAt } from './yaml-source.js';

const allowEntry = z
  .object({
    ecosystem: z.enum(ECOSYSTEMS),
    name: z.string().min(1),
    version: z.string().min(1).optional(),
    note: z.string().optional(),
  })
  .strict();

/** `on_unanswered: {after: 2h, do: decline}`; decline is the only act, so a typo there cannot become an answer. */
export const onUnansweredSchema = z
  .object({
    after: z.union([z.string(), z.number()]).transform((v, ctx) => {
      try {
        const ms = parseDuration(v, 'after');
        if (ms > 0) return ms;
        ctx.addIssue({ code: 'custom', message: `after ${JSON.stringify(v)} must be above zero` });
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
      return z.NEVER;
    }),
    do: z.literal('decline', { error: (iss) => `do ${JSON.stringify(iss.input)}: on_unanswered can only decline` }),
  })
  .strict();

const policyFile = z
  .object({
    policy: z.literal(1),
    description: z.string().optional(),
    allow: z.array(allowEntry).default([]),
    registries: z.partialRecord(z.enum(ECOSYSTEMS), z.array(z.string().min(1))).default({}),
    on_unanswered: onUnansweredSchema.optional(),
  })
  .strict();

export function parsePolicy(text: string, file: string): Policy {
  const { src, data } = readYaml(text, file, policyFile, 'policy');
  const allow = data.allow.map((e, i) => {
    if (e.version !== undefined && semver.validRange(e.version) === null) {
      throw new InputError(`allow.${i}.version "${e.version}" is not a valid version range (e.g. 1.6.0, ^4.17, >=2 <3)`, {
        file,
        line: lineAt(src, ['allow', i, 'version']),
      });
    }
    return { ecosystem: e.ecosystem, name: e.name, range: e.version ?? null };
  });
  const unanswered = data.on_unanswered ? { onUnanswered: { afterMs: data.on_unanswered.after, do: data.on_unanswered.do } } : {};
  return { allow, registries: data.registries, file, ...unanswered };
}

export async function loadPolicy(file: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new InputError(`cannot read policy: ${(cause as Error).message}`, { file, cause });
  }
  return parsePolicy(text, file);
}
