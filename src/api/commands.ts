/**
 * Every verb the daemon accepts, as records: arguments as a zod schema
 * (checked before the handler runs), usage, result, who may call it, its
 * HTTP route, its target and how the fleet answers it. The handlers are
 * bound to these inside the daemon (src/daemon/commands.ts).
 */
import { z } from 'zod';
import { personNameSchema, webRoleSchema } from '../people/auth-input.js';
import { defineRecord, type CommandRecord } from './command.js';
import { DIGEST_NIGHT_MS } from './digest.js';
import * as R from './results.js';

const text = z.string().min(1);
/**
 * What `send` types: printable text. A control character is a key press
 * (Ctrl-C, Esc), and it is refused before anything is typed, naming the
 * command that presses keys, rather than typed half-way.
 */
const typedText = text.superRefine((v, ctx) => {
  const m = /[\u0000-\u001f\u007f]/.exec(v);
  if (!m) return;
  const code = `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  ctx.addIssue({ code: 'custom', message: `text holds the control character ${code}: send types text; press keys with key (nightshift key JOB ctrl-c, or POST /api/v1/jobs/JOB/key {"key":"ctrl-c"})` });
});
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
/** The socket caller who hands out or takes back a web token, for the web audit log. */
const caller = z.string().optional();

export const COMMANDS = [
  defineRecord({ name: 'status', usage: '{reset_loop?}', role: 'viewer', target: 'none', fleet: 'daemon', result: R.statusSchema, args: z.strictObject({ reset_loop: z.boolean().optional() }) }),
  // Through the daemon, so the test uses the very notifiers and credentials the night's pages will.
  defineRecord({ name: 'page-test', usage: '', role: 'local', target: 'none', fleet: 'daemon', result: R.pageTestSchema, args: none }),
  // The spec's fields are checked by the board, whose messages name the CLI flag.
  defineRecord({
    name: 'submit',
    usage: '{spec: {name, command, cwd, …, env_of?}}',
    role: 'local',
    target: 'none',
    fleet: 'board',
    result: R.submittedSchema,
    args: z.strictObject({ spec: z.record(z.string(), z.unknown()) }),
  }),
  defineRecord({ name: 'board', usage: '', role: 'viewer', target: 'none', fleet: 'board', result: R.boardSchema, http: { method: 'GET', path: '/jobs' }, args: none }),
  // One daemon's night: its notes (answers, verdicts, last lines) are on its own board, not the fleet's.
  defineRecord({
    name: 'digest',
    usage: '{since_ms?}',
    role: 'viewer',
    target: 'none',
    fleet: 'daemon',
    result: R.digestSchema,
    http: { method: 'GET', path: '/digest' },
    args: z.strictObject({ since_ms: z.coerce.number().int().min(1).default(DIGEST_NIGHT_MS) }),
  }),
  defineRecord({ name: 'show', usage: '{job}', role: 'viewer', target: 'job', fleet: 'board', result: R.shownSchema, http: { method: 'GET', path: '/jobs/:job' }, args: job }),
  defineRecord({
    name: 'evidence',
    usage: '{job, limit?}',
    role: 'viewer',
    target: 'job',
    fleet: 'owner',
    http: { method: 'GET', path: '/jobs/:job/evidence' },
    result: R.evidenceListSchema,
    args: z.strictObject({ job: text, limit: z.coerce.number().int().min(1).max(10_000).default(500) }),
  }),
  // Its target is the record, not the live job: a job that is not blocked is told so before whether it is live.
  defineRecord({
    name: 'answer',
    usage: '{job, text | key | choice: answer|decline, who?}',
    role: 'operator',
    target: 'job',
    fleet: 'owner',
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
  }),
  defineRecord({
    name: 'send',
    usage: '{job, text, enter?, who?}',
    role: 'operator',
    target: { live: 'send to' },
    fleet: 'owner',
    result: R.jobIdSchema,
    http: { method: 'POST', path: '/jobs/:job/send' },
    args: z.strictObject({ job: text, text: typedText, enter: z.boolean().optional(), who }),
  }),
  defineRecord({
    name: 'continue',
    usage: '{job, who?}',
    role: 'operator',
    target: { live: 'continue' },
    fleet: 'owner',
    result: R.continuedSchema,
    http: { method: 'POST', path: '/jobs/:job/continue' },
    args: z.strictObject({ job: text, who }),
  }),
  // Its target is the record: a key name that is none is told so before whether the job is live.
  defineRecord({
    name: 'key',
    usage: '{job, key, who?}',
    role: 'operator',
    target: 'job',
    fleet: 'owner',
    result: R.keyedSchema,
    http: { method: 'POST', path: '/jobs/:job/key' },
    args: z.strictObject({ job: text, key: text, who }),
  }),
  defineRecord({
    name: 'cancel',
    usage: '{job, who?}',
    role: 'operator',
    target: 'job',
    fleet: 'owner',
    result: R.cancelledSchema,
    http: { method: 'POST', path: '/jobs/:job/cancel' },
    args: z.strictObject({ job: text, who }),
  }),
  defineRecord({ name: 'ack', usage: '{job}', role: 'operator', target: 'job', fleet: 'owner', result: R.ackedSchema, http: { method: 'POST', path: '/jobs/:job/ack' }, args: job }),
  defineRecord({ name: 'attach', usage: '{job, who?}', role: 'local', target: { live: 'attach to' }, fleet: 'stream', result: R.attachedSchema, args: z.strictObject({ job: text, who }) }),
  defineRecord({
    name: 'logs',
    usage: '{job, follow?}',
    role: 'local',
    target: 'job',
    fleet: 'stream',
    result: R.jobIdSchema,
    args: z.strictObject({ job: text, follow: z.boolean().optional() }),
  }),
  defineRecord({
    name: 'prune',
    usage: '{older_than_ms, dry_run?}',
    role: 'local',
    target: 'none',
    fleet: 'daemon',
    result: R.prunedSchema,
    args: z.strictObject({ older_than_ms: z.number().int().min(0), dry_run: z.boolean().optional() }),
  }),
  defineRecord({
    name: 'stop',
    usage: '{now?, detach?}',
    role: 'local',
    target: 'none',
    fleet: 'daemon',
    result: R.stoppingSchema,
    args: z.strictObject({ now: z.boolean().optional(), detach: z.boolean().optional() }),
  }),
  /*
   * The web view's people, managed from the control socket only (role
   * `local`, no HTTP route): whoever can reach the socket is the daemon's
   * own user, so only they hand out and take back tokens.
   */
  defineRecord({
    name: 'web-token',
    usage: '{name, role?: viewer|operator, who?}',
    role: 'local',
    target: 'none',
    fleet: 'daemon',
    args: z.strictObject({ name: personNameSchema, role: webRoleSchema.optional(), who: caller }),
    result: R.tokenMadeSchema,
  }),
  defineRecord({ name: 'web-revoke', usage: '{name, who?}', role: 'local', target: 'none', fleet: 'daemon', args: z.strictObject({ name: personNameSchema, who: caller }), result: R.revokedSchema }),
  defineRecord({ name: 'web-list', usage: '{who?}', role: 'local', target: 'none', fleet: 'daemon', args: z.strictObject({ who: caller }), result: R.peopleSchema }),
];
// The one list the transports take (a `satisfies` on the literal would widen every name to string).
export const COMMAND_LIST: readonly CommandRecord[] = COMMANDS;

type Table = (typeof COMMANDS)[number];
/** The commands a client may call, by name. */
export type CommandName = Table['name'];
/** A command's record, by name. */
export type RecordOf<K extends CommandName> = Extract<Table, { name: K }>;
/** What a client sends: the schema's input (defaults may be left out). */
export type CommandArgs<K extends CommandName> = z.input<RecordOf<K>['args']>;
/** What the client receives: the output of the command's result schema, which the client checks the reply against. */
export type CommandResult<K extends CommandName> = z.output<RecordOf<K>['result']>;

/** The commands the fleet answers in the manner `route` names (src/fleet/route.ts). */
export const fleetRouted = (route: CommandRecord['fleet']): ReadonlySet<string> => new Set(COMMAND_LIST.filter((c) => c.fleet === route).map((c) => c.name));
