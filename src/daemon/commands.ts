/**
 * The daemon's command table: every verb the control socket accepts, with
 * its arguments as a zod schema (checked before the handler runs) and its
 * usage. Handlers with more than a few lines live in commands/.
 */
import { z } from 'zod';
import { keySequence } from '../pty/keys.js';
import { InputError } from '../util/errors.js';
import { defineCommand, type DaemonCommand } from './command.js';
import { boardRow, cancel, liveJob, show, submit } from './commands/jobs.js';
import { attach, logs } from './commands/streams.js';
import { inheritEnv, maskJob, maskShown } from './job-secrets.js';

const text = z.string().min(1);
const none = z.strictObject({});
const job = z.strictObject({ job: text });

export const COMMANDS = [
  defineCommand({
    name: 'status',
    usage: '{reset_loop?}',
    args: z.strictObject({ reset_loop: z.boolean().optional() }),
    handler: (d, a) => ({
      pid: process.pid,
      state_dir: d.opts.stateDir,
      counts: d.board.counts(),
      max_running: d.opts.maxRunning,
      event_loop: d.loopDelay.report(a.reset_loop === true),
    }),
  }),
  // The spec's fields are checked by the board, whose messages name the CLI flag.
  // Records leave the daemon masked: secret-looking env values are ***, the job's own values redacted (job-secrets.ts).
  defineCommand({
    name: 'submit',
    usage: '{spec: {name, command, cwd, …, env_of?}}',
    args: z.strictObject({ spec: z.record(z.string(), z.unknown()) }),
    handler: async (d, a) => {
      const done = await submit(d, inheritEnv(d.board, a.spec) as Record<string, unknown>);
      return { ...done, job: maskJob(done.job) };
    },
  }),
  defineCommand({ name: 'board', usage: '', args: none, handler: (d) => d.board.list().map((rec) => boardRow(d, rec)) }),
  defineCommand({ name: 'show', usage: '{job}', args: job, handler: (d, a) => maskShown(show(d, a.job)) }),
  defineCommand({
    name: 'answer',
    usage: '{job, text, who?}',
    args: z.strictObject({ job: text, text, who: z.string().optional() }),
    handler: async (d, a) => {
      const rec = d.board.require(a.job);
      if (rec.state !== 'blocked') throw new InputError(`job ${rec.name} is not blocked (it is ${rec.state}: ${rec.reason.code}); nothing to answer`);
      const who = a.who || 'unknown';
      const keys = await liveJob(d, rec, 'answer').live.answer(a.text, who);
      d.pager.ack(rec.id);
      return { job: rec.id, keys, answered_by: `human:${who}` };
    },
  }),
  defineCommand({
    name: 'send',
    usage: '{job, text, enter?, who?}',
    args: z.strictObject({ job: text, text, enter: z.boolean().optional(), who: z.string().optional() }),
    handler: async (d, a) => {
      const rec = d.board.require(a.job);
      await liveJob(d, rec, 'send to').live.personSend(a.text, a.enter !== false, a.who || 'unknown');
      return { job: rec.id };
    },
  }),
  defineCommand({
    name: 'continue',
    usage: '{job, who?}',
    args: z.strictObject({ job: text, who: z.string().optional() }),
    handler: (d, a) => {
      const rec = d.board.require(a.job);
      const who = a.who || 'unknown';
      const was = rec.reason.code;
      liveJob(d, rec, 'continue').live.continueJob(who);
      d.pager.ack(rec.id);
      return { job: rec.id, by: `human:${who}`, was };
    },
  }),
  defineCommand({
    name: 'key',
    usage: '{job, key, who?}',
    args: z.strictObject({ job: text, key: text, who: z.string().optional() }),
    handler: (d, a) => {
      const rec = d.board.require(a.job);
      keySequence(a.key);
      liveJob(d, rec, 'press keys in').live.personKey(a.key, a.who || 'unknown');
      return { job: rec.id, key: a.key };
    },
  }),
  defineCommand({
    name: 'cancel',
    usage: '{job, who?}',
    args: z.strictObject({ job: text, who: z.string().optional() }),
    handler: (d, a) => cancel(d, a.job, a.who || 'unknown'),
  }),
  defineCommand({
    name: 'ack',
    usage: '{job}',
    args: job,
    handler: (d, a) => {
      const rec = d.board.require(a.job);
      return { job: rec.id, acknowledged: d.pager.ack(rec.id) };
    },
  }),
  defineCommand({
    name: 'attach',
    usage: '{job, who?}',
    args: z.strictObject({ job: text, who: z.string().optional() }),
    handler: (d, a, ctx) => attach(d, a.job, ctx, a.who || 'unknown'),
  }),
  defineCommand({
    name: 'logs',
    usage: '{job, follow?}',
    args: z.strictObject({ job: text, follow: z.boolean().optional() }),
    handler: (d, a, ctx) => logs(d, a.job, a.follow === true, ctx),
  }),
  defineCommand({
    name: 'stop',
    usage: '{now?}',
    args: z.strictObject({ now: z.boolean().optional() }),
    handler: (d, a) => {
      const mode = a.now === true ? 'now' : 'drain';
      setImmediate(() => void d.stop(mode));
      return { stopping: mode, running: d.running().length };
    },
  }),
];
// The one list the transports take (a `satisfies` on the literal would widen every name to string).
export const COMMAND_LIST: readonly DaemonCommand[] = COMMANDS;

type Table = (typeof COMMANDS)[number];
/** The commands a client may call, by name. */
export type CommandName = Table['name'];
/** What a client sends: the schema's input (defaults may be left out). */
export type CommandArgs<K extends CommandName> = z.input<Extract<Table, { name: K }>['args']>;
/** What the handler returns, as the client receives it. */
export type CommandResult<K extends CommandName> = Awaited<ReturnType<Extract<Table, { name: K }>['handler']>>;
