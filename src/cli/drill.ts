/** `nightshift drill [--json] [PATH…]` — replay recorded scenarios in virtual time. */
import type { Command } from 'commander';
import { drillFile, scenarioFiles } from '../drill/drill.js';
import { formatReport } from '../drill/report.js';
import { summarise } from '../drill/summary.js';
import type { ScenarioResult } from '../drill/scenario-result.js';
import { defaultPolicyPath, loadBundle } from '../rules/bundle.js';
import { isInputError } from '../util/errors.js';
import { addWatchdogFlags, defaultRulesPath, watchdogConfig, type WatchdogFlags } from './common.js';
import { describeError, EXIT } from './exit.js';
import { toolGapWarning } from './flag-traps.js';
import { packagePath } from '../util/package.js';

interface DrillFlags extends WatchdogFlags {
  json?: boolean;
  rules?: string;
  policy?: string;
}

export function registerDrill(program: Command): void {
  const cmd = program
    .command('drill')
    .description('replay asciicast scenarios (files or folders) through the watchdog in virtual time')
    .argument('[paths...]', '.cast files or folders of them (default: the scenarios shipped with nightshift)')
    .option('--json', 'print exactly one JSON document')
    .option('--rules <path>', 'rules directory or file (default: the shipped rules/)')
    .option('--policy <file>', 'auto-answer policy (default: policy.yaml in the rules directory); a scenario sidecar may name its own');
  addWatchdogFlags(cmd).action(async (paths: string[], flags: DrillFlags) => {
    process.exitCode = await drill(paths, flags);
  });
}

async function drill(given: string[], flags: DrillFlags): Promise<number> {
  const paths = given.length ? given : [shippedScenarios()];
  const gap = toolGapWarning(watchdogConfig(flags));
  if (gap) process.stderr.write(`nightshift: warning: ${gap}\n`);
  const rulesPath = flags.rules ?? defaultRulesPath();
  const bundle = await loadBundle(rulesPath, flags.policy ?? defaultPolicyPath(rulesPath));
  const results: ScenarioResult[] = [];
  const errors: string[] = [];
  const files: string[] = [];
  for (const path of paths) {
    try {
      files.push(...(await scenarioFiles([path])));
    } catch (e) {
      if (!isInputError(e)) throw e;
      errors.push(describeError(e));
    }
  }
  for (const file of files) {
    try {
      results.push(await drillFile(file, bundle, watchdogConfig(flags), rulesPath));
    } catch (e) {
      if (!isInputError(e)) throw e;
      errors.push(describeError(e));
    }
  }
  if (flags.json) process.stdout.write(`${JSON.stringify({ scenarios: results, summary: summarise(results), errors })}\n`);
  else process.stdout.write(`${formatReport(results)}\n`);
  for (const e of errors) process.stderr.write(`nightshift: ${e}\n`);
  if (errors.length) return EXIT.input;
  return results.some((r) => r.passed === false) ? EXIT.failed : EXIT.ok;
}

/** The scenarios in the package, wherever it is installed; named on stderr, as the report does not say where they came from. */
function shippedScenarios(): string {
  const dir = packagePath('scenarios');
  process.stderr.write(`nightshift: drilling the shipped scenarios in ${dir}\n`);
  return dir;
}
