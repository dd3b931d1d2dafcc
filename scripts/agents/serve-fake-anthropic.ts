/**
 * Runs test/agents/fake-anthropic.ts as a stand-alone server for scripts
 * (record-claude-scenarios.sh), with a fresh Claude Code HOME for a project:
 *
 *   node serve-fake-anthropic.js --project DIR --script '[{"tool":"Bash","command":"rm -rf build"}]' \
 *        --env-out OUT.sh [--requests OUT.json]
 *
 * Writes OUT.sh (bash: `export NAME='value'` for the CLI's variables and HOME,
 * `unset NAME` for variables of this environment that would leak into the CLI)
 * once the server listens, then serves until SIGTERM/SIGINT, when it writes
 * every request it saw to --requests. Compiled by the calling script with tsc
 * (it is TypeScript like the tests it shares code with).
 */
import { parseArgs } from 'node:util';
import { stopOnSignal, writeEnvFile } from './env-file.js';
import { prepareClaudeHome } from '../../test/agents/claude-env.js';
import { startFakeAnthropic, type ScriptStep } from '../../test/agents/fake-anthropic.js';

const { values } = parseArgs({
  options: {
    project: { type: 'string' },
    script: { type: 'string' },
    'env-out': { type: 'string' },
    requests: { type: 'string' },
    home: { type: 'string' },
  },
});
if (!values.project || !values.script || !values['env-out']) {
  process.stderr.write('usage: serve-fake-anthropic --project DIR --script JSON --env-out OUT [--requests OUT.json] [--home DIR]\n');
  process.exit(2);
}

const script = JSON.parse(values.script) as ScriptStep[];
const server = await startFakeAnthropic(script);
const h = prepareClaudeHome(values.project, server.url, values.home ? { home: values.home } : {});
writeEnvFile(values['env-out'], h);
process.stderr.write(`fake-anthropic: ${server.url} (HOME ${h.home})\n`);

stopOnSignal(server, values.requests);
