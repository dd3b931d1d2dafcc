/**
 * Runs test/agents/fake-gemini.ts as a stand-alone server for scripts
 * (record-agent-versions.sh), with a fresh Gemini CLI HOME for a project:
 *
 *   node serve-fake-gemini.js --project DIR --script '[{"shell":"touch made.txt"}]' \
 *        --env-out OUT.sh [--requests OUT.json] [--home DIR] [--untrusted]
 *
 * Same contract as serve-fake-anthropic.ts: OUT.sh (bash exports and unsets)
 * once the server listens, every request to --requests on SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { stopOnSignal, writeEnvFile } from './env-file.js';
import { prepareGeminiHome } from '../../test/agents/gemini-env.js';
import { startFakeGemini, type GeminiStep } from '../../test/agents/fake-gemini.js';

const { values } = parseArgs({
  options: {
    project: { type: 'string' },
    script: { type: 'string' },
    'env-out': { type: 'string' },
    requests: { type: 'string' },
    home: { type: 'string' },
    untrusted: { type: 'boolean' },
  },
});
if (!values.project || !values.script || !values['env-out']) {
  process.stderr.write('usage: serve-fake-gemini --project DIR --script JSON --env-out OUT [--requests OUT.json] [--home DIR] [--untrusted]\n');
  process.exit(2);
}

const server = await startFakeGemini(JSON.parse(values.script) as GeminiStep[]);
const h = prepareGeminiHome(values.project, server.url, { ...(values.home ? { home: values.home } : {}), trust: !values.untrusted });
writeEnvFile(values['env-out'], h);
process.stderr.write(`fake-gemini: ${server.url} (HOME ${h.home})\n`);

stopOnSignal(server, values.requests);
