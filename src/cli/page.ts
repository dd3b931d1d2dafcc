/** `nightshift page --test` — one test page through every notifier, with each one's result. */
import type { Command } from 'commander';
import { runningDaemonPid } from '../daemon/lock.js';
import { loadNotifyConfig } from '../notify/config.js';
import { SEND_TIMEOUTS } from '../notify/pager.js';
import { sendTestPage, testPage, type TestPageResult } from '../notify/test-page.js';
import { InputError } from '../util/errors.js';
import { findConfig } from '../util/home.js';
import { addStateFlag, callDaemon, printJson, stateDirOf, type StateFlag } from './daemon-client.js';
import { EXIT } from './exit.js';

interface PageFlags extends StateFlag {
  test?: boolean;
  json?: boolean;
}

export function registerPage(program: Command): void {
  addStateFlag(
    program
      .command('page')
      .description('send a test page through every configured notifier (through the running daemon, else straight from config.yaml)')
      .option('--test', 'send a page marked as a test; one line per notifier says whether it went')
      .option('--json', 'the results as one JSON document'),
  ).action(async (f: PageFlags) => {
    if (!f.test) throw new InputError('page sends only test pages: give --test (the daemon pages by itself when a job needs you)');
    const { via, results } = await sendThroughBest(f);
    if (f.json) printJson({ via, results });
    else process.stdout.write(`${via}\n${resultLines(results)}`);
    process.exitCode = results.length === 0 || results.some((r) => !r.ok) ? EXIT.failed : EXIT.ok;
  });
}

/** The running daemon's pager (the very config and environment of the night), else config.yaml read here. */
async function sendThroughBest(f: PageFlags): Promise<{ via: string; results: TestPageResult[] }> {
  const stateDir = stateDirOf(f);
  const pid = runningDaemonPid(stateDir);
  if (pid !== null) {
    const { results } = await callDaemon({ state: stateDir }, 'page-test', {});
    return { via: `through the daemon (pid ${pid}) for ${stateDir}${results.length ? '' : ': it has no notifiers, nobody would be paged'}`, results };
  }
  const found = findConfig(stateDir);
  if (!found.file) return { via: `no daemon is running for ${stateDir}, and no config.yaml was found (looked in ${found.looked.join(', ')}): nobody would be paged`, results: [] };
  const cfg = await loadNotifyConfig(found.file);
  const results = await sendTestPage(cfg, testPage(Date.now(), 'nightshift page --test'), { env: process.env, ...SEND_TIMEOUTS });
  return { via: `no daemon is running for ${stateDir}: sent from ${found.file}${results.length ? '' : ', which has no notifiers: nobody would be paged'}`, results };
}

export function resultLines(results: readonly TestPageResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.notifier.length));
  return results.map((r) => `${r.notifier.padEnd(width)}  ${r.kind.padEnd(7)}  ${r.ok ? 'ok' : `failed: ${r.error ?? 'no reason given'}`}\n`).join('');
}
