/** The `nightshift` command: one file per verb, registered here. */
import { Command, CommanderError } from 'commander';
import { DaemonError } from '../daemon/client.js';
import { ResultMismatchError } from '../daemon/command.js';
import { isInputError } from '../util/errors.js';
import { registerDrill } from './drill.js';
import { describeError, EXIT } from './exit.js';
import { registerAck } from './ack.js';
import { registerAnswer } from './answer.js';
import { registerAttach } from './attach.js';
import { registerBoard } from './board.js';
import { registerCancel } from './cancel.js';
import { registerContinue } from './continue.js';
import { registerDaemon } from './daemon.js';
import { registerHosts } from './hosts.js';
import { registerKey } from './key.js';
import { registerLogs } from './logs.js';
import { registerPtyhost } from './ptyhost.js';
import { registerRules } from './rules.js';
import { registerRun } from './run.js';
import { registerSend } from './send.js';
import { registerShow } from './show.js';
import { registerShutdown } from './shutdown.js';
import { registerSubmit } from './submit.js';
import { registerResume } from './resume.js';
import { registerStats } from './stats.js';
import { registerWeb } from './web.js';

function buildProgram(): Command {
  const program = new Command('nightshift')
    .description('unattended terminal supervisor for AI coding agents')
    .version('0.1.0')
    .enablePositionalOptions()
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error:') ? `nightshift: ${s}` : s) });
  registerRun(program);
  registerDrill(program);
  registerRules(program);
  for (const register of [registerDaemon, registerSubmit, registerBoard, registerShow, registerAnswer, registerSend, registerKey, registerContinue, registerAttach, registerCancel, registerLogs, registerAck, registerShutdown, registerResume, registerStats, registerWeb, registerPtyhost, registerHosts]) {
    register(program);
  }
  // Subcommands inherit exitOverride/configureOutput only when set before they are added.
  for (const c of program.commands) c.exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(`nightshift: ${s}`) });
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
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
