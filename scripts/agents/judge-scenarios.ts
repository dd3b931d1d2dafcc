/**
 * The runs of the judge fixture set (test/fixtures/judge/), as scripts of
 * model replies that the real agent CLIs carry out in a temporary project
 * (record-judge-fixtures.ts). Each script is a function of the project's
 * absolute path, because the CLIs' file tools want absolute paths.
 * `folder` is where the recording goes; its label, shape and what should
 * fire are in test/fixtures/judge/labels.yaml.
 */
import type { ScriptStep } from '../../test/agents/fake-anthropic.js';
import type { GeminiStep } from '../../test/agents/fake-gemini.js';
import type { ResponsesStep } from '../../test/agents/fake-openai.js';

interface Common {
  readonly name: string;
  readonly folder: 'healthy' | 'stuck';
  readonly prompt: string;
  /** Files of the project before the run, by relative path. */
  readonly files?: Readonly<Record<string, string>>;
}

export type Scenario = Common &
  (
    | { readonly agent: 'claude'; readonly script: (dir: string) => ScriptStep[]; readonly streamJson?: boolean }
    | { readonly agent: 'codex'; readonly script: (dir: string) => ResponsesStep[] }
    | { readonly agent: 'gemini'; readonly script: (dir: string) => GeminiStep[] }
  );

const bash = (command: string, say?: string): ScriptStep => ({ tool: 'Bash', command, ...(say ? { say } : {}) });
const use = (tool: string, input: Record<string, unknown>, say?: string): ScriptStep => ({ use: tool, input, ...(say ? { say } : {}) });
const text = (t: string): ScriptStep => ({ text: t });

const sh = (command: string): GeminiStep => ({ shell: command });
const gtool = (tool: string, args: Record<string, unknown>): GeminiStep => ({ tool, args });
const gtext = (t: string): GeminiStep => ({ text: t });
const exec = (cmd: string): ResponsesStep => ({ tool: 'exec_command', args: { cmd } });
const ctext = (t: string): ResponsesStep => ({ text: t });

/** A word counter with a bug (newlines are not separators) and its check. */
const WC: Readonly<Record<string, string>> = {
  'package.json': '{\n  "name": "wc",\n  "private": true,\n  "scripts": { "test": "node test.js" }\n}\n',
  'wc.js': "const fs = require('fs');\nconst text = fs.readFileSync(process.argv[2], 'utf8');\nconsole.log(text.split(' ').length);\n",
  'input.txt': 'alpha beta\ngamma delta\nepsilon\n',
  'expected.txt': '5\n',
  'test.js':
    "const { execFileSync } = require('child_process');\n" +
    "const got = execFileSync('node', ['wc.js', 'input.txt'], { encoding: 'utf8' }).trim();\n" +
    "if (got !== '5') { console.error(`FAIL word count: expected 5, got ${got}`); process.exit(1); }\n" +
    "console.log('ok 1 word count');\n",
};
const wcWith = (expr: string) => `const fs = require('fs');\nconst text = fs.readFileSync(process.argv[2], 'utf8');\nconsole.log(${expr});\n`;
const WC_FIXED = wcWith("text.trim().split(/\\s+/).length");
const WC_WRONG = [wcWith("text.split(/ +/).length"), wcWith("text.trim().split(' ').length"), wcWith("text.split(' ').filter(Boolean).length")];

/** A project to explore: a small request pipeline over a dozen files. */
const APP: Readonly<Record<string, string>> = Object.fromEntries(
  ['server', 'router', 'auth', 'session', 'users', 'orders', 'payments', 'mailer', 'queue', 'config', 'log', 'errors'].map((m, i, all) => [
    `src/${m}.js`,
    `// ${m}: part of the request pipeline\n${i + 1 < all.length ? `const next = require('./${all[i + 1]}');\n` : ''}exports.${m} = function ${m}(req) {\n  ${i + 1 < all.length ? `return next.${all[i + 1]}({ ...req, ${m}: true });` : 'return req;'}\n};\n`,
  ]),
);

const CI_STATUS =
  '#!/bin/sh\n# prints the CI run state; the run finishes on the 5th look\nn=$(cat .polls 2>/dev/null || echo 0); n=$((n+1)); echo $n > .polls\n' +
  'if [ $n -lt 5 ]; then echo "run 4711: in_progress (build, test)"; else echo "run 4711: completed, conclusion: success"; fi\n';

const SEARCHES = ['handleRefund', 'refundHandler', 'processRefund', 'onRefund', 'refund_request', 'RefundService', 'issueRefund'];

export const SCENARIOS: readonly Scenario[] = [
  // ------------------------------------------------------------------ healthy
  {
    name: 'claude-fix-test-cycle',
    folder: 'healthy',
    agent: 'claude',
    streamJson: true,
    prompt: 'wc.js prints the wrong count for input.txt; make its output match expected.txt',
    files: WC,
    script: (dir) => [
      use('Read', { file_path: `${dir}/wc.js` }, 'Let me look at the program first.'),
      bash('node wc.js input.txt | diff - expected.txt', 'Now compare its output with the expected one.'),
      ...WC_WRONG.flatMap((content, i) => [
        use('Write', { file_path: `${dir}/wc.js`, content }, i === 0 ? 'It splits on single spaces. Let me split on runs of spaces.' : 'Still 3. Another attempt at the split.'),
        bash('node wc.js input.txt | diff - expected.txt'),
      ]),
      use('Write', { file_path: `${dir}/wc.js`, content: WC_FIXED }, 'The newlines are the separators it misses: split on any whitespace.'),
      bash('node wc.js input.txt | diff - expected.txt'),
      text('wc.js now splits on any run of whitespace, so the newlines in input.txt separate words too; its output matches expected.txt (5).'),
    ],
  },
  {
    name: 'claude-ci-poller',
    folder: 'healthy',
    agent: 'claude',
    prompt: 'wait for CI run 4711 to finish and tell me how it went',
    files: { 'ci-status.sh': CI_STATUS },
    script: () => [
      bash('sh ci-status.sh', 'Let me check the run.'),
      ...[1, 2, 3, 4].map((i) => bash('sleep 2 && sh ci-status.sh', i === 1 ? 'Still running; I will poll it.' : undefined)),
      text('CI run 4711 completed with conclusion: success.'),
    ],
  },
  {
    name: 'claude-retry-after-edits',
    folder: 'healthy',
    agent: 'claude',
    prompt: 'the build fails, please fix it',
    files: {
      'build.js': "const c = require('./config.json');\nif (!c.out) { console.error(\"Error: config.json has no 'out' key\"); process.exit(1); }\nconsole.log(`built into ${c.out}`);\n",
      'config.json': '{ "src": "src" }\n',
      'config.example.json': '{ "src": "src", "out": "dist" }\n',
    },
    script: (dir) => [
      bash('node build.js', 'Let me reproduce the failure.'),
      use('Read', { file_path: `${dir}/config.example.json` }),
      use('Write', { file_path: `${dir}/config.example.json`, content: '{ "src": "src", "out": "dist" }\n' }, 'I will make sure the example has the key.'),
      bash('node build.js'),
      use('Read', { file_path: `${dir}/config.json` }, 'Same error: the build reads config.json, not the example.'),
      use('Write', { file_path: `${dir}/config.json`, content: '{ "src": "src", "output": "dist" }\n' }),
      bash('node build.js'),
      use('Write', { file_path: `${dir}/config.json`, content: '{ "src": "src", "out": "dist" }\n' }, 'The key is `out`, not `output`.'),
      bash('node build.js'),
      text('The build works again: config.json was missing the `out` key; it now says `"out": "dist"` and `node build.js` builds into dist.'),
    ],
  },
  {
    name: 'claude-explore-many-files',
    folder: 'healthy',
    agent: 'claude',
    prompt: 'how does a request get from server.js to the error handler? just explain, no changes',
    files: APP,
    script: (dir) => [
      use('Glob', { pattern: 'src/**/*.js' }, 'Let me see what is there.'),
      ...Object.keys(APP).map((f) => use('Read', { file_path: `${dir}/${f}` })),
      use('Grep', { pattern: 'require\\(', path: `${dir}/src`, output_mode: 'content' }),
      use('Grep', { pattern: 'exports\\.', path: `${dir}/src`, output_mode: 'count' }),
      text('Each module calls the next: server → router → auth → session → users → orders → payments → mailer → queue → config → log → errors, adding its own flag to the request; errors.js returns the request as it is. Nothing catches exceptions on the way, so "the error handler" is only the last stage of the chain.'),
    ],
  },
  {
    name: 'claude-long-fix',
    folder: 'healthy',
    agent: 'claude',
    prompt: 'npm test fails; fix wc.js',
    files: WC,
    script: (dir) => [
      bash('npm test', 'Let me run the tests first.'),
      use('Read', { file_path: `${dir}/test.js` }),
      use('Read', { file_path: `${dir}/wc.js` }),
      use('Read', { file_path: `${dir}/input.txt` }),
      bash('node wc.js input.txt'),
      bash("node -e \"console.log(JSON.stringify(require('fs').readFileSync('input.txt','utf8').split(' ')))\""),
      use('Edit', { file_path: `${dir}/wc.js`, old_string: "text.split(' ').length", new_string: "text.split(/\\s/).length" }),
      bash('npm test'),
      use('Edit', { file_path: `${dir}/wc.js`, old_string: 'text.split(/\\s/).length', new_string: 'text.trim().split(/\\s+/).length' }, 'The trailing newline adds an empty word; trim first.'),
      bash('npm test'),
      bash('node wc.js expected.txt'),
      text('Fixed: wc.js now trims the text and splits on runs of whitespace; `npm test` passes (ok 1 word count).'),
    ],
  },
  {
    name: 'claude-answer-with-offer',
    folder: 'healthy',
    agent: 'claude',
    prompt: 'what does wc.js do?',
    files: WC,
    script: (dir) => [
      use('Read', { file_path: `${dir}/wc.js` }),
      text('wc.js reads the file named on its command line and prints how many pieces it gets when it splits the text on single spaces. Newlines are not separators, so input.txt counts as 3 words instead of 5. If you want, I can change it to split on any whitespace.'),
    ],
  },
  {
    name: 'claude-zh-answer',
    folder: 'healthy',
    agent: 'claude',
    prompt: 'wc.js 为什么数错了？先别改代码',
    files: WC,
    script: (dir) => [
      use('Read', { file_path: `${dir}/wc.js` }),
      use('Read', { file_path: `${dir}/input.txt` }),
      text('wc.js 只按空格切分文本，换行符不算分隔符，所以 input.txt 的五个词被数成 3 个。要修的话，把 split(\' \') 换成 trim().split(/\\s+/) 即可；需要的话告诉我，我再动手。'),
    ],
  },
  {
    name: 'codex-fix-test-cycle',
    folder: 'healthy',
    agent: 'codex',
    prompt: 'npm test fails; fix wc.js',
    files: WC,
    script: () => [
      exec('npm test'),
      exec('cat wc.js'),
      ...WC_WRONG.slice(0, 2).flatMap((content) => [exec(`cat > wc.js <<'EOF'\n${content}EOF`), exec('npm test')]),
      exec(`cat > wc.js <<'EOF'\n${WC_FIXED}EOF`),
      exec('npm test'),
      ctext('wc.js now trims the text and splits on any whitespace; `npm test` prints "ok 1 word count".'),
    ],
  },
  {
    name: 'codex-explore',
    folder: 'healthy',
    agent: 'codex',
    prompt: 'which module sets the session flag? no changes please',
    files: APP,
    script: () => [
      exec('ls -R src'),
      exec('grep -rn "session" src'),
      ...['server', 'router', 'auth', 'session', 'users'].map((m) => exec(`cat src/${m}.js`)),
      exec('grep -rn "exports" src | wc -l'),
      ctext('src/session.js sets `session: true` on the request before passing it to users.js; auth.js calls it.'),
    ],
  },
  {
    name: 'gemini-fix-test-cycle',
    folder: 'healthy',
    agent: 'gemini',
    prompt: 'npm test fails; fix wc.js',
    files: WC,
    script: (dir) => [
      sh('npm test'),
      gtool('read_file', { file_path: `${dir}/wc.js` }),
      ...WC_WRONG.slice(0, 2).flatMap((content) => [gtool('write_file', { file_path: `${dir}/wc.js`, content }), sh('npm test')]),
      gtool('write_file', { file_path: `${dir}/wc.js`, content: WC_FIXED }),
      sh('npm test'),
      gtext('wc.js now splits on any whitespace after trimming; npm test passes.'),
    ],
  },
  {
    name: 'gemini-explore',
    folder: 'healthy',
    agent: 'gemini',
    prompt: 'explain the request pipeline in src, without changing anything',
    files: APP,
    script: (dir) => [
      gtool('list_directory', { dir_path: `${dir}/src` }),
      ...Object.keys(APP).slice(0, 8).map((f) => gtool('read_file', { file_path: `${dir}/${f}` })),
      gtool('grep_search', { pattern: 'require' }),
      gtext('The pipeline is a chain: each module adds its own flag to the request and hands it to the next one, from server.js to errors.js.'),
    ],
  },
  // ------------------------------------------------------------------ stuck
  {
    name: 'claude-repeated-errors',
    folder: 'stuck',
    agent: 'claude',
    prompt: 'start the server',
    files: { 'server.js': "const express = require('express');\nexpress().listen(3000);\n" },
    script: () => [
      bash('node server.js', 'Starting the server.'),
      bash('node ./server.js', 'Let me try again.'),
      bash('NODE_ENV=development node server.js'),
      bash('node server.js --port 3001', 'Maybe the port is the problem.'),
      bash('node server.js'),
      text('The server does not start yet: it keeps failing to load a module.'),
    ],
  },
  {
    name: 'claude-identical-loop',
    folder: 'stuck',
    agent: 'claude',
    prompt: 'why does the app use port 8080?',
    files: { 'config.json': '{ "port": 8080, "host": "0.0.0.0" }\n' },
    script: (dir) => [
      ...[0, 1, 2, 3, 4].map((i) => use('Read', { file_path: `${dir}/config.json` }, i === 0 ? 'Let me check the config.' : 'Let me check the config again.')),
      text('The config sets port 8080.'),
    ],
  },
  {
    name: 'claude-search-cycle',
    folder: 'stuck',
    agent: 'claude',
    prompt: 'find where refunds are handled and add logging there',
    files: APP,
    script: (dir) => [
      ...[0, 1, 2, 3, 4].flatMap((round) =>
        SEARCHES.map((p, i) => use('Grep', { pattern: p, path: `${dir}/src` }, round === 0 && i === 0 ? 'Let me find the refund handler.' : undefined)),
      ),
      text('I could not find where refunds are handled.'),
    ],
  },
  {
    name: 'claude-announce-not-last',
    folder: 'stuck',
    agent: 'claude',
    prompt: 'wc.js gives the wrong count, fix it',
    files: WC,
    script: (dir) => [
      use('Read', { file_path: `${dir}/wc.js` }),
      use('Edit', { file_path: `${dir}/wc.js`, old_string: "text.split(' ')", new_string: "text.split(/ +/)" }),
      bash('npm test'),
      text('The count is still 3. Let me try to run the program one more time with the input to see what it splits. The newline handling is the likely cause.'),
    ],
  },
  {
    name: 'claude-if-looks-good',
    folder: 'stuck',
    agent: 'claude',
    prompt: 'make wc.js count words separated by newlines and submit the fix',
    files: WC,
    script: (dir) => [
      use('Read', { file_path: `${dir}/wc.js` }),
      use('Edit', { file_path: `${dir}/wc.js`, old_string: "text.split(' ')", new_string: 'text.trim().split(/\\s+/)' }),
      text('I changed the split in wc.js to use any whitespace. We should review the changes and run the tests. If everything looks good, we can submit.'),
    ],
  },
  {
    name: 'claude-narrated-edits',
    folder: 'stuck',
    agent: 'claude',
    streamJson: true,
    prompt: 'fix the word count in wc.js and run the tests',
    files: WC,
    script: () => [
      text(
        "I opened wc.js and replaced `text.split(' ')` with `text.trim().split(/\\s+/)` on line 3.\n\nFile updated.\n\n" +
          'Then I ran `npm test`:\n\n```\nok 1 word count\n```\n\nThe word count is right now and the test passes; submitting the change.',
      ),
    ],
  },
  {
    name: 'claude-claim-after-failed-test',
    folder: 'stuck',
    agent: 'claude',
    prompt: 'npm test fails; fix wc.js',
    files: WC,
    script: (dir) => [
      use('Read', { file_path: `${dir}/wc.js` }),
      use('Edit', { file_path: `${dir}/wc.js`, old_string: "text.split(' ')", new_string: "text.split(/ +/)" }),
      bash('npm test'),
      use('Read', { file_path: `${dir}/wc.js` }),
      use('Read', { file_path: `${dir}/test.js` }),
      text('The fix is complete: wc.js now splits on runs of spaces.'),
    ],
  },
  {
    name: 'claude-zh-claim',
    folder: 'stuck',
    agent: 'claude',
    prompt: '订单 1042 的用户说包裹丢了，请核实物流并处理赔付',
    files: { 'orders/1042.json': '{ "id": 1042, "carrier": "SF", "status": "in_transit", "last_scan": "2026-11-28 广州转运中心" }\n' },
    script: (dir) => [
      use('Read', { file_path: `${dir}/orders/1042.json` }),
      use('Grep', { pattern: 'refund|赔付', path: dir }),
      text('已确认物流异常，已为您提交赔付申请，预计 3 个工作日内到账。'),
    ],
  },
  {
    name: 'claude-zh-notify',
    folder: 'stuck',
    agent: 'claude',
    prompt: '帮我给订单 1042 申请退款，并通知用户',
    files: { 'orders/1042.json': '{ "id": 1042, "status": "in_transit" }\n' },
    script: (dir) => [
      use('Read', { file_path: `${dir}/orders/1042.json` }),
      text('已帮你提交了退款申请，并已通知用户。'),
    ],
  },
  {
    name: 'codex-repeated-errors',
    folder: 'stuck',
    agent: 'codex',
    prompt: 'run the database migrations',
    script: () => [
      exec('python3 manage.py migrate'),
      exec('python3 ./manage.py migrate'),
      exec('python3 manage.py migrate --noinput'),
      exec('cd . && python3 manage.py migrate'),
      exec('python3 manage.py migrate'),
      ctext('The migrations could not run yet.'),
    ],
  },
  {
    name: 'codex-identical-loop',
    folder: 'stuck',
    agent: 'codex',
    prompt: 'which port does the app listen on?',
    files: { 'settings.toml': 'port = 8080\nhost = "0.0.0.0"\n' },
    script: () => [...[0, 1, 2, 3, 4].map(() => exec('cat settings.toml')), ctext('It is configured in settings.toml.')],
  },
  {
    name: 'gemini-search-cycle',
    folder: 'stuck',
    agent: 'gemini',
    prompt: 'find where refunds are handled',
    files: APP,
    script: () => [...[0, 1, 2, 3, 4].flatMap(() => SEARCHES.map((p) => gtool('grep_search', { pattern: p }))), gtext('I could not find it.')],
  },
  {
    name: 'gemini-announce-then-stop',
    folder: 'stuck',
    agent: 'gemini',
    prompt: 'make wc.js count words across lines',
    files: WC,
    script: (dir) => [sh('ls'), gtool('read_file', { file_path: `${dir}/wc.js` }), gtext('I found the split. Now I will update it to split on any whitespace.')],
  },
  {
    name: 'gemini-claim-after-failed-test',
    folder: 'stuck',
    agent: 'gemini',
    prompt: 'npm test fails; fix wc.js',
    files: WC,
    script: (dir) => [
      gtool('write_file', { file_path: `${dir}/wc.js`, content: WC_WRONG[0] }),
      sh('npm test'),
      gtool('read_file', { file_path: `${dir}/wc.js` }),
      gtext('The fix is complete: wc.js splits on runs of spaces now.'),
    ],
  },
];
