/** Drills: find scenario files, replay each, judge against its expectations. */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WatchdogConfig } from '../core/watchdog-types.js';
import { Responder } from '../responder/responder.js';
import type { RuleBundle } from '../rules/bundle.js';
import { loadPolicy } from '../rules/policy-file.js';
import { loadProbeConfig } from '../probes/profiles-file.js';
import { probesFile } from '../supervisor/agent-option.js';
import { streamCast } from '../record/cast-stream.js';
import { InputError } from '../util/errors.js';
import { loadScenario } from './expectations.js';
import { replayCast } from './replay.js';
import { buildResult, type ScenarioResult } from './scenario-result.js';

/** Expands files and folders (recursively) into .cast files, in a stable order. */
export async function scenarioFiles(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    let info;
    try {
      info = await stat(p);
    } catch (cause) {
      throw new InputError('no such file or directory', { file: p, cause });
    }
    if (info.isDirectory()) out.push(...(await castsIn(p)));
    else out.push(p);
  }
  return out;
}

async function castsIn(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await castsIn(p)));
    else if (e.name.endsWith('.cast')) out.push(p);
  }
  return out;
}

async function drillProbeProfile(rulesPath: string | undefined) {
  const file = rulesPath ? probesFile(rulesPath) : null;
  return file ? (await loadProbeConfig(file)).profile() : undefined;
}

export async function drillFile(file: string, bundle: RuleBundle, base: WatchdogConfig, rulesPath?: string): Promise<ScenarioResult> {
  const scenario = await loadScenario(file, base);
  // The file is read on its own thread while the policy and probes load and the replay runs; its problems still come first.
  const opening = streamCast(file);
  const policyLoad = scenario.policyFile ? loadPolicy(scenario.policyFile) : Promise.resolve(bundle.policy);
  const probesLoad = drillProbeProfile(rulesPath);
  for (const p of [opening, policyLoad, probesLoad]) p.catch(() => undefined);
  const cast = await opening;
  try {
    const responder = new Responder(bundle.rules.risks, await policyLoad);
    const replay = await replayCast(cast, bundle.rules, scenario.config, responder, await probesLoad);
    return buildResult(file, replay, scenario.expect, scenario.description);
  } finally {
    cast.close();
  }
}
