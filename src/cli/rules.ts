/** `nightshift rules check [PATH]` — validate rule files; `rules test` tries them on a screen. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { matchPrompts } from '../core/prompt-match.js';
import { fingerprintRows, lastNonBlankRow } from '../core/screen-snapshot.js';
import { loadRules } from '../rules/load.js';
import { InputError } from '../util/errors.js';
import { defaultRulesPath } from './common.js';

export function registerRules(program: Command): void {
  const rules = program.command('rules').description('check and try prompt rules');
  rules
    .command('check')
    .description('validate every rule file; exit 2 with file:line on the first problem')
    .argument('[path]', 'rules directory or file (default: the shipped rules/)')
    .action(async (path?: string) => {
      const set = await loadRules(path ?? defaultRulesPath());
      process.stdout.write(`ok: ${set.prompts.length} prompt rules, ${set.questions.length} question hints in ${set.files.length} file(s)\n`);
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
      const hits = matchPrompts(snap, [...set.prompts, ...set.questions]);
      if (!hits.length) process.stdout.write('no rule matches\n');
      for (const h of hits) process.stdout.write(`${h.rule.id} (${h.rule.class}) rows ${h.top}-${h.bottom}: ${JSON.stringify(h.text)}\n`);
    });
}
