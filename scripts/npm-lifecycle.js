#!/usr/bin/env node
/**
 * npm's lifecycle scripts for nightshift, by npm's own name for the event:
 * - prepare (a plain `npm install` in a clone, `npm link`, `npm install -g .`): builds dist/ with
 *   TypeScript, then bundles the CLI with rolldown (scripts/build-cli.mjs), both devDependencies.
 *   A global install from a folder runs it before installing any dependency, so tsc is missing
 *   there: that ends with what to do instead, not `tsc: not found`.
 * - prepack (npm pack, npm publish): a clean build, so no file of an older build ships.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const say = (line) => process.stderr.write(`nightshift: ${line}\n`);

const events = { prepare, prepack };
const event = events[process.env.npm_lifecycle_event ?? ''];
if (!event) {
  say(`scripts/npm-lifecycle.js runs as an npm script (${Object.keys(events).join(', ')}), not as ${process.env.npm_lifecycle_event ?? 'a command'}`);
  process.exit(2);
}
process.exit(event());

function prepare() {
  // npm pack runs prepack, then prepare: the build is prepack's, once.
  if (['pack', 'publish'].includes(process.env.npm_command ?? '')) return 0;
  const tsc = typescript();
  if (tsc) return build(tsc);
  if (existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
    say('TypeScript is not installed: using the build already in dist/');
    return 0;
  }
  say('cannot build from source here: TypeScript, a devDependency, is not installed.');
  say('From a clone, install with: npm install && npm link');
  say('Or pack and install the tarball: npm pack && npm install -g ./nightshift-VERSION.tgz');
  if (process.env.npm_config_global === 'true') {
    const prefix = process.env.npm_config_prefix;
    say(`npm may leave a link to this folder behind; remove it with: npm uninstall -g${prefix ? ` --prefix ${prefix}` : ''} nightshift`);
  }
  return 1;
}

function prepack() {
  const tsc = typescript();
  if (!tsc) {
    say('packing needs the devDependencies (TypeScript builds dist/): run npm install first');
    return 1;
  }
  // A file left in dist/ by an older build would otherwise ship in the tarball.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  return build(tsc);
}

/** npm run build's two steps: tsc, then the CLI's bundle (scripts/build-cli.mjs). */
function build(tsc) {
  for (const argv of [[tsc, '-p', join(root, 'tsconfig.json')], [join(root, 'scripts', 'build-cli.mjs')]]) {
    const status = spawnSync(process.execPath, argv, { cwd: root, stdio: 'inherit' }).status ?? 1;
    if (status !== 0) return status;
  }
  return 0;
}

function typescript() {
  try {
    return createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}
