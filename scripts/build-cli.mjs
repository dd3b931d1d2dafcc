#!/usr/bin/env node
/**
 * The CLI's bundle, the build's step after tsc (npm run build, prepack): dist/src/cli/main.js
 * and everything it imports, but verbs.ts and the packages other than commander, become one
 * module in main.js's place (lazy parts in dist/src/cli/bundle/). Node 20 resolves, reads and
 * compiles each ES module on its own, with no compile cache: 30 files and commander cost a
 * read-only verb more than starting Node itself.
 *
 * In the bundle, src/api/compiled-checks.ts is replaced by validators compiled from the result
 * schemas of the read-only commands (role `viewer`): zod 4 writes each as JSON Schema, ajv
 * compiles that to standalone code. A reply that passes is the reply; any other is checked by
 * zod, which words the mismatch (src/api/check-reply.ts).
 *
 * A build by tsc alone overwrites main.js with its unbundled self, which works the same, slower.
 */
import { readFileSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'package.json'));
const cli = join(root, 'dist', 'src', 'cli');
const CHUNKS = 'bundle';
/** The bundle's first line: its input must be tsc's main.js, never an earlier bundle. */
const BANNER = '// The CLI bundle: scripts/build-cli.mjs made it from tsc\'s output; tsc -p tsconfig.json replaces it.';
/** Packages bundled with the CLI: commander, which every verb loads. The rest load from node_modules, only when used. */
const BUNDLED_PACKAGES = ['commander'];

/**
 * ES module source exporting COMPILED_CHECKS: one validator per read-only command, by name.
 * `commands` are the command records (src/api/commands.ts); `z` is zod.
 */
export function compiledChecksSource(commands, z) {
  const { default: Ajv2020 } = require('ajv/dist/2020');
  const { default: standaloneCode } = require('ajv/dist/standalone');
  const ajv = new Ajv2020({ code: { source: true, esm: true }, strict: true });
  const exports = {};
  const names = [];
  for (const [i, c] of commands.filter((c) => c.role === 'viewer').entries()) {
    // The input's schema: the check runs before anything is parsed, and result schemas never transform.
    ajv.addSchema({ ...z.toJSONSchema(c.result, { io: 'input', unrepresentable: 'throw' }), $id: `c${i}` });
    exports[`c${i}`] = `c${i}`;
    names.push(`${JSON.stringify(c.name)}: c${i}`);
  }
  const code = standaloneCode(ajv, exports);
  if (/\brequire\(/.test(code)) throw new Error('ajv standalone code needs its runtime (require): the compiled checks would not be self-contained');
  return `${code}\nexport const COMPILED_CHECKS = { ${names.join(', ')} };\n`;
}

async function bundle() {
  const { build } = await import('rolldown');
  const { z } = await import('zod');
  const { COMMAND_LIST } = await import(pathToFileURL(join(root, 'dist', 'src', 'api', 'commands.js')).href);
  const checks = join(root, 'dist', 'src', 'api', 'compiled-checks.js');
  const entry = join(cli, 'main.js');
  if (readFileSync(entry, 'utf8').startsWith(BANNER)) {
    process.stderr.write('nightshift: dist/src/cli/main.js is a bundle already; build with npm run build (tsc, then this)\n');
    process.exit(1);
  }
  const source = compiledChecksSource(COMMAND_LIST, z);
  const builtins = new Set(builtinModules);
  const bare = (id) => !id.startsWith('.') && !id.startsWith('/');
  rmSync(join(cli, CHUNKS), { recursive: true, force: true });
  await build({
    input: entry,
    platform: 'node',
    logLevel: 'warn',
    external: (id, importer) => {
      if (id.startsWith('node:') || builtins.has(id)) return true;
      if (id === './verbs.js' && importer === entry) return true;
      return bare(id) && !BUNDLED_PACKAGES.some((p) => id === p || id.startsWith(`${p}/`));
    },
    plugins: [{ name: 'compiled-checks', load: (id) => (id === checks ? source : null) }],
    output: {
      dir: cli,
      format: 'esm',
      // What a read-only verb runs, in one file the lazy parts (the fleet, a handover, zod's check) import from. Not the
      // entry itself: it awaits the verb at its top level, and a lazy part importing it would wait for itself.
      codeSplitting: { groups: [{ name: 'cli', tags: ['$initial'], test: (id) => id !== entry }] },
      entryFileNames: 'main.js',
      postBanner: (chunk) => (chunk.isEntry ? BANNER : ''),
      chunkFileNames: `${CHUNKS}/[name]-[hash].js`,
      // Less to compile: Node 20 keeps no compile cache for ES modules.
      minify: true,
      sourcemap: true,
    },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bundle();
}
