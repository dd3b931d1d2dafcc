/**
 * A scenario's expectations, from the sidecar `NAME.expect.yaml` beside
 * `NAME.cast`. Format documented in README.md ("Scenarios").
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_WATCHDOG, type WatchdogConfig } from '../core/watchdog-types.js';
import { parseYaml, validate, lineAt } from '../rules/yaml-source.js';
import { parseDuration } from '../util/duration.js';
import { InputError } from '../util/errors.js';

const duration = z.union([z.string(), z.number()]);

const stateMatch = z
  .object({
    state: z.enum(['queued', 'running', 'blocked', 'done']).optional(),
    reason: z.string().optional(),
    rule: z.string().optional(),
    class: z.string().optional(),
  })
  .strict();

const actionMatch = z
  .object({
    kind: z.enum(['answer', 'escalate', 'nudge', 'stop']).optional(),
    rule: z.string().nullable().optional(),
    class: z.string().nullable().optional(),
    reason: z.string().optional(),
    layer: z.string().optional(),
    keys: z.array(z.string()).optional(),
    /** Words the action's prompt or text must contain: what a person is shown. */
    says: z.string().min(1).optional(),
  })
  .strict();

const expectFile = z
  .object({
    description: z.string().optional(),
    recorded: z.string().optional(),
    /** A policy file for this drill, relative to the sidecar. */
    policy: z.string().optional(),
    config: z
      .object({ screen_quiet: duration.optional(), tool_gap: duration.optional(), settle: duration.optional() })
      .strict()
      .default({}),
    expect: z
      .object({
        reach: z.array(stateMatch).default([]),
        never: z.array(stateMatch).default([]),
        final: stateMatch.optional(),
        actions: z.array(actionMatch).default([]),
        /** Action kinds that must not occur at all (e.g. answer). */
        no_actions_of_kind: z.array(z.enum(['answer', 'escalate', 'nudge', 'stop'])).default([]),
        max_actions: z.number().int().min(0).optional(),
        max_time_to_alert: z.number().min(0).optional(),
      })
      .strict(),
  })
  .strict();

export type StateMatch = z.infer<typeof stateMatch>;
export type ActionMatch = z.infer<typeof actionMatch>;
export type Expectations = z.infer<typeof expectFile>['expect'];

export interface Scenario {
  readonly description?: string;
  readonly policyFile?: string;
  readonly config: WatchdogConfig;
  readonly expect?: Expectations;
}

export function expectationPath(castPath: string): string {
  return castPath.replace(/\.cast$/, '') + '.expect.yaml';
}

/** Reads the sidecar if there is one; a scenario without one has no expectations. */
export async function loadScenario(castPath: string, base: WatchdogConfig = DEFAULT_WATCHDOG): Promise<Scenario> {
  const file = expectationPath(castPath);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { config: base };
    throw new InputError(`cannot read expectations: ${(e as Error).message}`, { file, cause: e });
  }
  const src = parseYaml(text, file);
  const data = validate(src, expectFile);
  const conf = (key: 'screen_quiet' | 'tool_gap' | 'settle', fallback: number) => {
    const v = data.config[key];
    if (v === undefined) return fallback;
    try {
      return parseDuration(v, `config.${key}`);
    } catch (e) {
      throw new InputError((e as Error).message, { file, line: lineAt(src, ['config', key]), cause: e });
    }
  };
  return {
    ...(data.description === undefined ? {} : { description: data.description }),
    ...(data.policy === undefined ? {} : { policyFile: resolve(dirname(file), data.policy) }),
    config: {
      screenQuietMs: conf('screen_quiet', base.screenQuietMs),
      toolGapMs: conf('tool_gap', base.toolGapMs),
      settleMs: conf('settle', base.settleMs),
      verifyMs: base.verifyMs,
    },
    expect: data.expect,
  };
}
