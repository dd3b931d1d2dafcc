/** The `nightshift` program over a table of verbs: building it, running it, and the exit code of what went wrong. */
import { Command, CommanderError } from 'commander';
import { DaemonError } from '../daemon/client.js';
import { ResultMismatchError } from '../api/command.js';
import { isInputError } from '../util/errors.js';
import { packageVersion } from '../util/package.js';
import { describeError, EXIT } from './exit.js';

type Register = (program: Command) => void;

/** A verb's name, and loading its file (registering the verb on the program). */
export type Verb = readonly [string, () => Promise<Register>];

/** The verb argv names, if it names one: nothing before a verb but the program itself. */
export function verbOf(argv: readonly string[], verbs: readonly Verb[]): string | undefined {
  const first = argv[2];
  return verbs.some(([name]) => name === first) ? first : undefined;
}

async function buildProgram(argv: readonly string[], verbs: readonly Verb[]): Promise<Command> {
  const program = new Command('nightshift')
    .description('unattended terminal supervisor for AI coding agents')
    .version(packageVersion())
    .enablePositionalOptions()
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error:') ? `nightshift: ${s}` : s) });
  const verb = verbOf(argv, verbs);
  const registers = await Promise.all(verbs.filter(([name]) => verb === undefined || name === verb).map(([, load]) => load()));
  for (const register of registers) register(program);
  // Subcommands inherit exitOverride/configureOutput only when set before they are added.
  for (const c of program.commands) c.exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(`nightshift: ${s}`) });
  return program;
}

/** Runs the program over `verbs`; what went wrong ends as one line on stderr and process.exitCode, never as a throw. */
export async function runProgram(argv: string[], verbs: readonly Verb[]): Promise<void> {
  try {
    await (await buildProgram(argv, verbs)).parseAsync(argv);
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
