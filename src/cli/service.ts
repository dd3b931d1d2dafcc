/** `nightshift service install|uninstall --systemd|--launchd|--pm2` — run the daemon under a service manager. */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { nextSteps, renderUnit, MANAGERS, type Manager, type ServiceSpec } from '../service/units.js';
import { homeOf, launchdLogFile, unitFile } from '../service/where.js';
import { InputError } from '../util/errors.js';
import { defaultStateDir } from '../util/home.js';
import { packagePath } from '../util/package.js';

/** This package's own entry point, whichever copy is running (a clone, a global install). */
const BIN = packagePath('bin', 'nightshift.js');

type ManagerFlags = Partial<Record<Manager, boolean>>;

interface InstallFlags extends ManagerFlags {
  state?: string;
  print?: boolean;
}

function managerOf(f: ManagerFlags): Manager {
  const chosen = MANAGERS.filter((m) => f[m] === true);
  if (chosen.length !== 1) throw new InputError(`name one service manager: ${MANAGERS.map((m) => `--${m}`).join(', ')}${chosen.length > 1 ? ` (got ${chosen.map((m) => `--${m}`).join(' and ')})` : ''}`);
  return chosen[0]!;
}

function addManagerFlags(cmd: Command): Command {
  return cmd
    .option('--systemd', 'a systemd user unit (Linux)')
    .option('--launchd', 'a launchd agent (macOS)')
    .option('--pm2', 'a pm2 ecosystem file');
}

function specOf(f: InstallFlags): ServiceSpec {
  return {
    node: process.execPath,
    bin: BIN,
    stateDir: f.state ? resolve(f.state) : defaultStateDir(),
    path: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    home: homeOf(),
    logFile: launchdLogFile(),
  };
}

function install(f: InstallFlags): void {
  const manager = managerOf(f);
  const text = renderUnit(manager, specOf(f));
  if (f.print) {
    process.stdout.write(text);
    return;
  }
  const file = unitFile(manager);
  const existed = existsSync(file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o644 });
  const steps = nextSteps(manager, file).map((l) => `  ${l}`);
  process.stdout.write(`${existed ? 'replaced' : 'wrote'} ${file}\nnext:\n${steps.join('\n')}\n`);
}

function uninstall(f: ManagerFlags): void {
  const manager = managerOf(f);
  const file = unitFile(manager);
  if (!existsSync(file)) throw new InputError(`${file}: no ${manager} unit to remove`);
  rmSync(file);
  process.stdout.write(`removed ${file} (stop the daemon with its manager first if it runs; its jobs run on for the next daemon)\n`);
}

export function registerService(program: Command): void {
  const service = program.command('service').description('run the daemon under systemd, launchd or pm2, keeping jobs alive across stop, restart and upgrades');
  addManagerFlags(
    service
      .command('install')
      .description('write the unit file for one service manager (with absolute paths to this node and nightshift) and print what to run next')
      .option('--state <dir>', 'state directory of the daemon (default: $NIGHTSHIFT_STATE or ~/.local/state/nightshift)')
      .option('--print', 'print the file instead of writing it'),
  ).action((f: InstallFlags) => install(f));
  addManagerFlags(service.command('uninstall').description('remove the unit file written by install')).action((f: ManagerFlags) => uninstall(f));
}
