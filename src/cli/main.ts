/** The `nightshift` command: one file per verb, registered here. */
import { Command, CommanderError } from 'commander';
import { DaemonError } from '../daemon/client.js';
import { ResultMismatchError } from '../api/command.js';
import { isInputError } from '../util/errors.js';
import { packageVersion } from '../util/package.js';
import { describeError, EXIT } from './exit.js';

type Register = (program: Command) => void;

/**
 * Every verb, in the order --help lists them. A verb's file is loaded only
 * when that verb runs (all of them for --help or a name that is none):
 * loading every verb's dependencies (xterm, node-pty, fastify, pg, SQLite)
 * cost each `nightshift board` about 0.4 s before it did anything.
 */
const VERBS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['run', async () => (await import('./run.js')).registerRun],
  ['drill', async () => (await import('./drill.js')).registerDrill],
  ['rules', async () => (await import('./rules.js')).registerRules],
  ['daemon', async () => (await import('./daemon.js')).registerDaemon],
  ['submit', async () => (await import('./submit.js')).registerSubmit],
  ['board', async () => (await import('./board.js')).registerBoard],
  ['digest', async () => (await import('./digest.js')).registerDigest],
  ['show', async () => (await import('./show.js')).registerShow],
  ['answer', async () => (await import('./answer.js')).registerAnswer],
  ['send', async () => (await import('./send.js')).registerSend],
  ['key', async () => (await import('./key.js')).registerKey],
  ['continue', async () => (await import('./continue.js')).registerContinue],
  ['attach', async () => (await import('./attach.js')).registerAttach],
  ['cancel', async () => (await import('./cancel.js')).registerCancel],
  ['logs', async () => (await import('./logs.js')).registerLogs],
  ['prune', async () => (await import('./prune.js')).registerPrune],
  ['ack', async () => (await import('./ack.js')).registerAck],
  ['status', async () => (await import('./status.js')).registerStatus],
  ['doctor', async () => (await import('./doctor.js')).registerDoctor],
  ['page', async () => (await import('./page.js')).registerPage],
  ['shutdown', async () => (await import('./shutdown.js')).registerShutdown],
  ['service', async () => (await import('./service.js')).registerService],
  ['resume', async () => (await import('./resume.js')).registerResume],
  ['stats', async () => (await import('./stats.js')).registerStats],
  ['web', async () => (await import('./web.js')).registerWeb],
  ['ptyhost', async () => (await import('./ptyhost.js')).registerPtyhost],
  ['hosts', async () => (await import('./hosts.js')).registerHosts],
];

/** The verb argv names, if it names one: nothing before a verb but the program itself. */
function verbOf(argv: readonly string[]): string | undefined {
  const first = argv[2];
  return VERBS.some(([name]) => name === first) ? first : undefined;
}

async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('nightshift')
    .description('unattended terminal supervisor for AI coding agents')
    .version(packageVersion())
    .enablePositionalOptions()
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error:') ? `nightshift: ${s}` : s) });
  const verb = verbOf(argv);
  const registers = await Promise.all(VERBS.filter(([name]) => verb === undefined || name === verb).map(([, load]) => load()));
  for (const register of registers) register(program);
  // Subcommands inherit exitOverride/configureOutput only when set before they are added.
  for (const c of program.commands) c.exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(`nightshift: ${s}`) });
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (e) {
    process.exitCode = exitCodeFor(e);
  }
}

function exitCodeFor(e: unknown): number {
  if (e instanceof CommanderError) {
    // --help and --version end through here with exit code 0.
    return e.exitCode === 0 ? EXIT.ok : EXIT.input;
  }
  if (isInputError(e)) {
    process.stderr.write(`nightshift: ${describeError(e)}\n`);
    return EXIT.input;
  }
  // Not the daemon's failure: its reply was fine by its own build; the message says which command.
  if (e instanceof ResultMismatchError) {
    process.stderr.write(`nightshift: ${e.message}\n`);
    return EXIT.internal;
  }
  // The daemon failed, not this process: its log has the stack, ours would only show the socket code.
  if (e instanceof DaemonError) {
    process.stderr.write(`nightshift: ${e.message} (the daemon log has the details)\n`);
    return EXIT.internal;
  }
  process.stderr.write(`nightshift: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  return EXIT.internal;
}

await main(process.argv);
