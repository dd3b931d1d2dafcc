/** `nightshift doctor` — check the setup before bed: what a daemon here would load, who it would page, what it would answer. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultRulesPath } from './common.js';
import { addStateFlag, printJson, stateDirOf, type StateFlag } from './daemon-client.js';
import { doctor, doctorText } from './doctor-report.js';
import { EXIT } from './exit.js';

interface DoctorFlags extends StateFlag {
  rules?: string;
  policy?: string;
  json?: boolean;
}

export function registerDoctor(program: Command): void {
  addStateFlag(
    program
      .command('doctor')
      .description('check config.yaml, the policy and the rules as the daemon would load them, and every credential; starts and sends nothing (exit 1 on a warning, 2 on a bad file)')
      .option('--rules <path>', 'rules directory or file, as given to the daemon (default: the shipped rules/)')
      .option('--policy <file>', 'the policy file given to the daemon with --policy')
      .option('--json', 'the report as one JSON document'),
  ).action(async (f: DoctorFlags) => {
    const r = await doctor({
      stateDir: stateDirOf(f),
      rulesPath: resolve(f.rules ?? defaultRulesPath()),
      policy: f.policy ? resolve(f.policy) : null,
      env: process.env,
    });
    if (f.json) printJson(r);
    else process.stdout.write(`${doctorText(r)}\n${r.warnings.length ? '' : 'ok: nothing to fix\n'}`);
    for (const w of r.warnings) process.stderr.write(`nightshift: warning: ${w}\n`);
    process.exitCode = r.warnings.length ? EXIT.failed : EXIT.ok;
  });
}
