#!/usr/bin/env node
/**
 * The CLI's bundle, the build's step after tsc (npm run build, prepack): dist/src/cli/main.js
 * and everything it imports, with commander, zod and yaml, become one module in main.js's place
 * and lazy chunks in dist/src/cli/bundle/ (verbs.ts, each verb, what they share). Node 20
 * resolves, reads and compiles each ES module on its own, with no compile cache: 30 files and
 * commander cost a read-only verb more than starting Node itself, and `run` loaded 271 module files
 * (95 of them zod's) before its job started. Worker threads and the PTY host's process start
 * from tsc's files, found from the package's folder (src/util/worker-url.ts), not the chunk's.
 *
 * In the bundle, src/api/compiled-checks.ts is replaced by validators compiled from the result
 * schemas of the read-only commands (role `viewer`): zod 4 writes each as JSON Schema, and
 * CheckWriter below writes that as plain functions that answer yes or no (ajv's standalone code
 * for the same schemas is 117 KB minified, most of it building error reports, and compiling it
 * cost more than it saved). A reply that passes is the reply; any other is checked by zod, which
 * words the mismatch (src/api/check-reply.ts).
 *
 * A build by tsc alone overwrites main.js with its unbundled self, which works the same, slower.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cli = join(root, 'dist', 'src', 'cli');
const CHUNKS = 'bundle';
/** The bundle's first line: its input must be tsc's main.js, never an earlier bundle. */
const BANNER = '// The CLI bundle: scripts/build-cli.mjs made it from tsc\'s output; tsc -p tsconfig.json replaces it.';
/** Packages bundled with the CLI: commander, which every verb loads, and zod, yaml and semver, of many files each (ES modules; semver's index requires 40), that most verbs load. The rest load from node_modules, only when used. */
const BUNDLED_PACKAGES = ['commander', 'zod', 'yaml', 'semver'];

/**
 * ES module source exporting COMPILED_CHECKS: one validator per read-only command, by name.
 * `commands` are the command records (src/api/commands.ts); `z` is zod.
 */
export function compiledChecksSource(commands, z) {
  const out = new CheckWriter();
  // The input's schema: the check runs before anything is parsed, and result schemas never transform.
  const names = commands
    .filter((c) => c.role === 'viewer')
    .map((c) => `${JSON.stringify(c.name)}: ${out.fn(z.toJSONSchema(c.result, { io: 'input', unrepresentable: 'throw' }))}`);
  return `${out.functions.join('\n')}\nexport const COMPILED_CHECKS = { ${names.join(', ')} };\n`;
}

/** Keywords that only annotate. */
const ANNOTATIONS = new Set(['$schema', 'readOnly', 'description', 'title', 'default']);
/** What a JSON Schema `type` asks of a value `v`, as an expression. */
const TYPES = {
  string: (v) => `typeof ${v} === 'string'`,
  number: (v) => `Number.isFinite(${v})`,
  integer: (v) => `Number.isSafeInteger(${v})`,
  boolean: (v) => `typeof ${v} === 'boolean'`,
  null: (v) => `${v} === null`,
  array: (v) => `Array.isArray(${v})`,
  object: (v) => `(typeof ${v} === 'object' && ${v} !== null && !Array.isArray(${v}))`,
};

/**
 * Writes a JSON Schema as plain boolean functions: only the keywords zod's toJSONSchema writes for
 * the result schemas (type, properties, required, additionalProperties, propertyNames of strings,
 * items, enum, const, anyOf). Any other keyword fails the build, never the check:
 * test/unit/compiled-checks.test.ts holds these functions to zod's own answers.
 */
class CheckWriter {
  functions = [];

  /** A new function checking `s`; its name. */
  fn(s) {
    // The slot first: the functions of what `s` holds are written while its own body is.
    const i = this.functions.push('') - 1;
    this.functions[i] = `function c${i}(v) { return ${this.expr(s, 'v')}; }`;
    return `c${i}`;
  }

  expr(s, v) {
    const unknown = Object.keys(s).filter((k) => !ANNOTATIONS.has(k) && !(k in this.keywords));
    if (unknown.length) throw new Error(`compiled checks: JSON Schema keyword(s) ${unknown.join(', ')} not supported: ${JSON.stringify(s)}`);
    const parts = Object.keys(s).filter((k) => k in this.keywords).map((k) => this.keywords[k](s, v));
    return parts.length ? parts.map((p) => `(${p})`).join(' && ') : 'true';
  }

  keywords = {
    type: (s, v) => [s.type].flat().map((t) => TYPES[t](v)).join(' || '),
    enum: (s, v) => `${JSON.stringify(s.enum)}.includes(${v})`,
    const: (s, v) => `${v} === ${JSON.stringify(s.const)}`,
    anyOf: (s, v) => s.anyOf.map((a) => `${this.fn(a)}(${v})`).join(' || '),
    items: (s, v) => `!Array.isArray(${v}) || ${v}.every(${this.fn(s.items)})`,
    required: (s, v) => `!${TYPES.object(v)} || ${s.required.map((k) => `Object.hasOwn(${v}, ${JSON.stringify(k)})`).join(' && ')}`,
    properties: (s, v) =>
      `!${TYPES.object(v)} || ${Object.entries(s.properties).map(([k, p]) => `(!Object.hasOwn(${v}, ${JSON.stringify(k)}) || ${this.fn(p)}(${v}[${JSON.stringify(k)}]))`).join(' && ') || 'true'}`,
    additionalProperties: (s, v) => {
      const named = JSON.stringify(Object.keys(s.properties ?? {}));
      const each = s.additionalProperties === false ? 'false' : s.additionalProperties === true ? 'true' : `${this.fn(s.additionalProperties)}(e[1])`;
      return `!${TYPES.object(v)} || Object.entries(${v}).every((e) => ${named}.includes(e[0]) || ${each})`;
    },
    propertyNames: (s) => {
      // Every key of a JSON object is a string.
      if (JSON.stringify(s.propertyNames) !== '{"type":"string"}') throw new Error(`compiled checks: propertyNames ${JSON.stringify(s.propertyNames)} not supported`);
      return 'true';
    },
  };
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
      return bare(id) && !BUNDLED_PACKAGES.some((p) => id === p || id.startsWith(`${p}/`));
    },
    plugins: [{ name: 'compiled-checks', load: (id) => (id === checks ? source : null) }],
    output: {
      dir: cli,
      format: 'esm',
      // What a read-only verb runs in one file, main.js, which the lazy parts (the fleet, a handover, zod's check)
      // import from, rather than in chunks of what they share.
      codeSplitting: { groups: [{ name: 'main', tags: ['$initial'] }] },
      entryFileNames: 'main.js',
      chunkFileNames: `${CHUNKS}/[name]-[hash].js`,
      postBanner: (chunk) => (chunk.isEntry ? BANNER : ''),
      // Less to compile: Node 20 keeps no compile cache for ES modules.
      minify: true,
      sourcemap: true,
    },
  });
}

/**
 * The shipped rules/ files as their loaders read them (src/rules/shipped-yaml.ts), so a CLI's
 * start skips parsing and checking them: from tsc's modules, whose loaders the bundle's match.
 */
async function shippedYaml() {
  const mod = (path) => import(pathToFileURL(join(root, 'dist', 'src', ...path.split('/'))).href);
  const { record, SHIPPED_TABLE } = await mod('rules/shipped-yaml.js');
  const { loadRules } = await mod('rules/load.js');
  const { loadPolicy } = await mod('rules/policy-file.js');
  const { loadProbeConfig } = await mod('probes/profiles-file.js');
  const rules = join(root, 'rules');
  const take = record();
  const set = await loadRules(rules);
  await loadPolicy(join(rules, 'policy.yaml'));
  await loadProbeConfig(join(rules, 'probes.yaml'));
  writeFileSync(join(root, ...SHIPPED_TABLE), `${JSON.stringify(take())}\n`);
  // The texts each shipped pattern needs (src/rules/needed-text.ts), so loading them parses no pattern.
  const { neededTextTable, NEEDED_TEXTS_TABLE } = await mod('rules/needed-text.js');
  const patterns = [...set.prompts, ...set.questions, ...set.parked].map((r) => r.match);
  writeFileSync(join(root, ...NEEDED_TEXTS_TABLE), `${JSON.stringify(neededTextTable(patterns))}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bundle();
  await shippedYaml();
}
