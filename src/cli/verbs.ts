/**
 * Every verb of `nightshift`, registered here, and the program over them
 * (what main.ts hands every verb but the read-only ones to).
 */
import { runProgram, type Verb } from './program.js';

/**
 * Every verb, in the order --help lists them. A verb's file is loaded only
 * when that verb runs (all of them for --help or a name that is none):
 * loading every verb's dependencies (xterm, node-pty, fastify, pg, SQLite)
 * cost each `nightshift board` about 0.4 s before it did anything.
 */
const VERBS: readonly Verb[] = [
  ['run', async () => {
    // The job's PTY thread starts now, while the rest of `run` loads (run.ts starts it if this did not).
    if (process.argv[2] === 'run' && !process.argv.some((a) => a === '--help' || a === '-h')) (await import('../pty/pty-thread-warm.js')).warmPtyThread();
    return (await import('./run.js')).registerRun;
  }],
  ['drill', async () => (await import('./drill.js')).registerDrill],
  ['judge', async () => (await import('./judge.js')).registerJudge],
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

/** Runs `nightshift` with every verb. */
export const runEveryVerb = (argv: string[]): Promise<void> => runProgram(argv, VERBS);
