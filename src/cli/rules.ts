/** `nightshift rules check [PATH]` — validate rule files; `rules test` tries them on a screen. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { matchPrompts } from '../core/prompt-match.js';
import { fingerprintRows, lastNonBlankRow } from '../core/screen-snapshot.js';
import { coverageSummary } from '../rules/coverage.js';
import { isPolicyFile, loadRules } from '../rules/load.js';
import { loadPolicy } from '../rules/policy-file.js';
import { InputError } from '../util/errors.js';
import { defaultRulesPath } from './common.js';

export function registerRules(program: Command): void {
  const rules = program.command('rules').description('check and try prompt rules');
  rules
    .command('check')
    .description('validate rule files and policy files; exit 2 with file:line on the first problem')
    .argument('[path]', 'rules directory or file (default: the shipped rules/)')
    .option('--policy <file>', 'also validate this policy file')
    .action(async (path: string | undefined, o: { policy?: string }) => {
      const rulesPath = path ?? defaultRulesPath();
      const set = await loadRules(rulesPath);
      const policies = [...(await policyFiles(rulesPath)), ...(o.policy ? [o.policy] : [])];
      const loaded = [];
      for (const f of policies) loaded.push(await loadPolicy(f));
      process.stdout.write(
        `ok: ${set.prompts.length} prompt rules, ${set.questions.length} question hints, ${set.parked.length} watch modes, ${set.risks.length} risk patterns in ${set.files.length} file(s)\n`,
      );
      for (const p of loaded) process.stdout.write(`ok: policy ${p.file}: ${p.allow.length} allow-listed package(s)\n`);
      const { coverage, unchecked } = coverageSummary(set.prompts);
      process.stdout.write(`coverage: ${coverage}\n`);
      if (unchecked.length) process.stdout.write(`not checked against a real screen: ${unchecked.join(', ')}\n`);
      // A rule whose pattern holds no fixed text is run over the whole screen at every look (rules/needed-text.ts).
      const everyLook = [...set.prompts, ...set.questions, ...set.parked].filter((r) => !r.needs).map((r) => r.id);
      if (everyLook.length) process.stdout.write(`run at every look (no fixed text in the pattern): ${everyLook.join(', ')}\n`);
    });
  rules
    .command('test')
    .description('show which rules match a screen saved as plain text (cursor at the end of its last line)')
    .argument('<screen-file>', 'text file holding a screen')
    .option('--rules <path>', 'rules directory or file')
    .action(async (file: string, o: { rules?: string }) => {
      const set = await loadRules(o.rules ?? defaultRulesPath());
      const text = await readFile(file, 'utf8').catch((cause: Error) => {
        throw new InputError(`cannot read screen file: ${cause.message}`, { file, cause });
      });
      const rows = text.replace(/\n$/, '').split('\n').map((r) => r.trimEnd());
      const last = Math.max(0, lastNonBlankRow(rows));
      const snap = { rows, cols: 200, cursor: { x: rows[last]!.length + 1, y: last }, alternate: false, fingerprint: fingerprintRows(rows) };
      const hits = matchPrompts(snap, [...set.prompts, ...set.questions, ...set.parked]);
      if (!hits.length) process.stdout.write('no rule matches\n');
      for (const h of hits) process.stdout.write(`${h.rule.id} (${set.parked.includes(h.rule) ? 'parked' : h.rule.class}) rows ${h.top}-${h.bottom}: ${JSON.stringify(h.text)}\n`);
    });
}

/** policy*.yaml files in a rules directory (a single rules file has none). */
async function policyFiles(rulesPath: string): Promise<string[]> {
  const info = await stat(rulesPath);
  if (!info.isDirectory()) return [];
  return (await readdir(rulesPath)).filter(isPolicyFile).sort().map((n) => join(rulesPath, n));
}
