/**
 * The daemon's command table: every verb the control socket accepts, with
 * its arguments as a zod schema (checked before the handler runs) and its
 * usage. Handlers with more than a few lines live in commands/.
 */
import { z } from 'zod';
import type { StopMode } from './daemon-stop.js';
import { keySequence } from '../core/keys.js';
import { byLabel, type AnswerInput } from '../supervisor/person-acts.js';
import { ConflictError, InputError } from '../util/errors.js';
import { defineCommand, type DaemonCommand } from './command.js';
import { boardRow, cancel, evidence, liveJob, show, submit } from './commands/jobs.js';
import { attach, logs } from './commands/streams.js';
import { statusOf } from './commands/status.js';
import { testPage } from '../notify/test-page.js';
import { WEB_COMMANDS } from './commands/web.js';
import { inheritEnv, maskJob, maskShown } from './job-secrets.js';
import { pruneJobs } from './prune.js';
import * as R from './results.js';

const text = z.string().min(1);
const none = z.strictObject({});
const job = z.strictObject({ job: text });
/**
 * Who acts, for `human:<who>` in the evidence. A caller cannot claim to be
 * a policy (`policy:on-unanswered`) or pre-label itself: a source prefix it
 * sends is dropped, so every act through a command is a person's.
 */
const who = z
  .string()
  .optional()
  .transform((w) => (w || 'unknown').replace(/^(?:human|policy):/i, '') || 'unknown');

export const COMMANDS = [
  defineCommand({
    name: 'status',
    usage: '{reset_loop?}',
    role: 'viewer',
    result: R.statusSchema,
    args: z.strictObject({ reset_loop: z.boolean().optional() }),
    handler: (d, a) => statusOf(d, a.reset_loop === true),
  }),
  // Through the daemon, so the test uses the very notifiers and credentials the night's pages will.
  defineCommand({
    name: 'page-test',
    usage: '',
    role: 'local',
    result: R.pageTestSchema,
    args: none,
    handler: async (d) => ({ results: await d.pager.test(testPage(Date.now(), `the daemon (pid ${process.pid})`)) }),
  }),
  // The spec's fields are checked by the board, whose messages name the CLI flag.
  // Records leave the daemon masked: secret-looking env values are ***, the job's own values redacted (job-secrets.ts).
  defineCommand({
    name: 'submit',
    usage: '{spec: {name, command, cwd, …, env_of?}}',
    role: 'local',
    result: R.submittedSchema,
    args: z.strictObject({ spec: z.record(z.string(), z.unknown()) }),
    handler: async (d, a) => {
      const done = await submit(d, inheritEnv(d.board, a.spec) as Record<string, unknown>);
      return { ...done, job: maskJob(done.job) };
    },
  }),
  defineCommand({
    name: 'board',
    usage: '',
    role: 'viewer',
    result: R.boardSchema,
    http: { method: 'GET', path: '/jobs' },
    args: none,
    handler: (d) => ({ jobs: d.board.list().map((rec) => boardRow(d, rec)) }),
  }),
  defineCommand({
    name: 'show',
    usage: '{job}',
    role: 'viewer',
    result: R.shownSchema,
    http: { method: 'GET', path: '/jobs/:job' },
    args: job,
    handler: async (d, a) => maskShown(await show(d, a.job)),
  }),
  defineCommand({
    name: 'evidence',
    usage: '{job, limit?}',
    role: 'viewer',
    http: { method: 'GET', path: '/jobs/:job/evidence' },
    result: R.evidenceListSchema,
    args: z.strictObject({ job: text, limit: z.coerce.number().int().min(1).max(10_000).default(500) }),
    handler: (d, a) => evidence(d, a.job, a.limit),
  }),
  defineCommand({
    name: 'answer',
    usage: '{job, text | key | choice: answer|decline, who?}',
    role: 'operator',
    result: R.answeredSchema,
    http: { method: 'POST', path: '/jobs/:job/answer' },
    args: z
      .strictObject({
        job: text,
        text: text.optional(),
        key: text.optional(),
        choice: z.enum(['answer', 'decline']).optional(),
        /** show's prompt.episode: the answer reaches that very prompt or nothing (the web's buttons send it). */
        episode: text.optional(),
        who,
      })
      .refine((a) => [a.text, a.key, a.choice].filter((v) => v !== undefined).length === 1, { message: 'give exactly one of text, key or choice' }),
    handler: async (d, a) => {
      const rec = d.board.require(a.job);
      if (rec.state !== 'blocked') throw new ConflictError(`job ${rec.name} is not blocked (it is ${rec.state}: ${rec.reason.code}); nothing to answer`);
      const by = byLabel(a.who);
      const live = liveJob(d, rec, 'answer');
      if (a.episode !== undefined && live.blockedEpisode !== a.episode) {
        throw new ConflictError(`job ${rec.name} has moved on from the question you answered (${a.episode}; now ${live.blockedEpisode ?? rec.reason.code}); nothing was sent`);
      }
      const input: AnswerInput = a.text !== undefined ? { text: a.text } : a.key !== undefined ? { key: a.key } : { choice: a.choice! };
      const keys = await live.answer(input, by);
      d.pager.ack(rec.id);
      return { job: rec.id, keys, answered_by: by };
    },
  }),
  defineCommand({
    name: 'send',
    usage: '{job, text, enter?, who?}',
    role: 'operator',
    result: R.jobIdSchema,
    http: { method: 'POST', path: '/jobs/:job/send' },
    args: z.strictObject({ job: text, text, enter: z.boolean().optional(), who }),
    handler: async (d, a) => {
      const rec = d.board.require(a.job);
      await liveJob(d, rec, 'send to').send(a.text, a.enter !== false, a.who);
      return { job: rec.id };
    },
  }),
  defineCommand({
    name: 'continue',
    usage: '{job, who?}',
    role: 'operator',
    result: R.continuedSchema,
    http: { method: 'POST', path: '/jobs/:job/continue' },
    args: z.strictObject({ job: text, who }),
    handler: (d, a) => {
      const rec = d.board.require(a.job);
      const who = a.who;
      const was = rec.reason.code;
      liveJob(d, rec, 'continue').continueJob(who);
      d.pager.ack(rec.id);
      return { job: rec.id, by: `human:${who}`, was };
    },
  }),
  defineCommand({
    name: 'key',
    usage: '{job, key, who?}',
    role: 'operator',
    result: R.keyedSchema,
    http: { method: 'POST', path: '/jobs/:job/key' },
    args: z.strictObject({ job: text, key: text, who }),
    handler: (d, a) => {
      const rec = d.board.require(a.job);
      keySequence(a.key);
      liveJob(d, rec, 'press keys in').key(a.key, a.who);
      return { job: rec.id, key: a.key };
    },
  }),
  defineCommand({
    name: 'cancel',
    usage: '{job, who?}',
    role: 'operator',
    result: R.cancelledSchema,
    http: { method: 'POST', path: '/jobs/:job/cancel' },
    args: z.strictObject({ job: text, who }),
    handler: (d, a) => cancel(d, a.job, a.who),
  }),
  defineCommand({
    name: 'ack',
    usage: '{job}',
    role: 'operator',
    result: R.ackedSchema,
    http: { method: 'POST', path: '/jobs/:job/ack' },
    args: job,
    handler: (d, a) => {
      const rec = d.board.require(a.job);
      return { job: rec.id, acknowledged: d.pager.ack(rec.id) };
    },
  }),
  defineCommand({
    name: 'attach',
    usage: '{job, who?}',
    role: 'local',
    result: R.attachedSchema,
    args: z.strictObject({ job: text, who }),
    handler: (d, a, ctx) => attach(d, a.job, ctx, a.who),
  }),
  defineCommand({
    name: 'logs',
    usage: '{job, follow?}',
    role: 'local',
    result: R.jobIdSchema,
    args: z.strictObject({ job: text, follow: z.boolean().optional() }),
    handler: (d, a, ctx) => logs(d, a.job, a.follow === true, ctx),
  }),
  defineCommand({
    name: 'prune',
    usage: '{older_than_ms, dry_run?}',
    role: 'local',
    result: R.prunedSchema,
    args: z.strictObject({ older_than_ms: z.number().int().min(0), dry_run: z.boolean().optional() }),
    handler: (d, a) =>
      pruneJobs(d.board, d.opts.stateDir, {
        olderThanMs: a.older_than_ms,
        now: Date.now(),
        dryRun: a.dry_run === true,
        busy: (id) => d.live(id) !== undefined,
        closePages: (id) => d.pager.resolve(id),
      }),
  }),
  defineCommand({
    name: 'stop',
    usage: '{now?, detach?}',
    role: 'local',
    result: R.stoppingSchema,
    args: z.strictObject({ now: z.boolean().optional(), detach: z.boolean().optional() }),
    handler: (d, a) => {
      if (a.now === true && a.detach === true) throw new InputError('--now stops the jobs and --detach leaves them running: give one of them');
      const mode: StopMode = a.now === true ? 'now' : a.detach === true ? 'detach' : 'drain';
      setImmediate(() => void d.stop(mode));
      return { stopping: mode, running: d.runningCount };
    },
  }),
  ...WEB_COMMANDS,
];
// The one list the transports take (a `satisfies` on the literal would widen every name to string).
export const COMMAND_LIST: readonly DaemonCommand[] = COMMANDS;

type Table = (typeof COMMANDS)[number];
/** The commands a client may call, by name. */
export type CommandName = Table['name'];
/** What a client sends: the schema's input (defaults may be left out). */
export type CommandArgs<K extends CommandName> = z.input<Extract<Table, { name: K }>['args']>;
/** What the client receives: the output of the command's result schema, which the client checks the reply against. */
export type CommandResult<K extends CommandName> = z.output<Extract<Table, { name: K }>['result']>;
