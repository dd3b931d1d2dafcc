/**
 * What each daemon command answers, as zod schemas: each command record
 * (commands.ts) names one, the compiler checks each handler's return
 * against it (src/daemon/commands.ts), and the CLI checks every reply
 * against it (src/cli/daemon-client.ts). Field names are a public interface (README "Task
 * board JSON"); the compile-time checks at the end keep these schemas and
 * the records of board/types.ts in step.
 *
 * No transforms or defaults: the CLI prints the reply as the daemon sent
 * it, so a schema's output must be its input.
 */
import { z } from 'zod';
import type { JobRecord, TransitionRecord } from '../board/types.js';
import type { Digest } from './digest.js';
import type { OutboxRow } from '../notify/outbox.js';
import { PAGE_KINDS, type Page } from '../notify/page.js';
import { WEB_ROLES } from '../people/types.js';

const iso = z.string();
const isoOrNull = iso.nullable();
export const jobStateSchema = z.enum(['queued', 'running', 'blocked', 'done']);

export const jobReasonSchema = z.object({
  code: z.string(),
  rule: z.string().optional(),
  class: z.string().optional(),
  detail: z.string().optional(),
  exit_code: z.number().nullable().optional(),
  signal: z.string().nullable().optional(),
});

const budgetsSchema = z.object({ wall_ms: z.number().nullable(), tokens: z.number().nullable(), no_progress_ms: z.number().nullable(), steps: z.number().nullable(), blocked_ms: z.number().nullable().default(null) });

const resumeFromSchema = z.object({
  job: z.string(),
  transcript: z.string(),
  lines: z.number(),
  last_event: z.string().nullable(),
  goal: z.string(),
  by: z.string().optional(),
});

const jobPathsSchema = z.object({ dir: z.string(), recording: z.string(), events: z.string(), log: z.string(), evidence: z.string(), summary: z.string() });

/** A board record (board/types.ts JobRecord), as board, show and submit hand it out. */
export const jobRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  state: jobStateSchema,
  reason: jobReasonSchema,
  command: z.array(z.string()),
  cwd: z.string(),
  env: z.record(z.string(), z.string()),
  policy: z.string().nullable(),
  rules: z.string().nullable(),
  budgets: budgetsSchema,
  priority: z.number(),
  after: z.array(z.string()),
  resume_from: resumeFromSchema.nullable(),
  on_unanswered: z.object({ after_ms: z.number(), do: z.literal('decline') }).nullable(),
  created: iso,
  started: isoOrNull,
  ended: isoOrNull,
  last_activity: isoOrNull,
  exit: z.object({ code: z.number(), signal: z.string().nullable() }).nullable(),
  paths: jobPathsSchema.nullable(),
  tokens_used: z.number().nullable(),
});

export const transitionSchema = z.object({ job: z.string(), time: iso, state: jobStateSchema, reason: jobReasonSchema });

/** A live job's warning (supervisor/tree-agent.ts JobWarning). */
const warningSchema = z.object({ code: z.enum(['no-transcript', 'unanswered-soon']), message: z.string(), time: iso });

const pageSchema = z.object({
  key: z.string(),
  job: z.string(),
  name: z.string(),
  state: z.string(),
  reason: z.string(),
  kind: z.enum(PAGE_KINDS),
  rule: z.string().nullable(),
  class: z.string().nullable(),
  prompt: z.string().nullable(),
  screen: z.array(z.string()),
  answer_command: z.string(),
  commands: z.array(z.string()).optional(),
  command: z.string().optional(),
  time: iso,
  urgent: z.boolean(),
});

/** One row of the pager's outbox (notify/outbox.ts), as show lists a job's pages. */
const outboxRowSchema = z.object({
  id: z.number(),
  key: z.string(),
  job: z.string(),
  notifier: z.string(),
  page: pageSchema,
  status: z.enum(['pending', 'delivered', 'acked', 'resolved', 'dropped']),
  round: z.number(),
  attempts: z.number(),
  next_at: z.number(),
  in_flight_until: z.number().nullable(),
  created_at: z.number(),
  delivered_at: z.number().nullable(),
  closed_at: z.number().nullable(),
  last_error: z.string().nullable(),
});

const signalsSchema = z.object({
  last_screen_change: isoOrNull,
  last_output: isoOrNull,
  last_tool_event: isoOrNull,
  tools_in_flight: z.number(),
  child_busy: z.boolean(),
  prompt_candidate: z.object({ rule: z.string(), since: isoOrNull }).nullable(),
});

const rulesCoverageSchema = z.object({
  agent: z.string(),
  version: z.string().nullable(),
  checked: z.array(z.string()).readonly(),
  covered: z.boolean().nullable(),
  note: z.string(),
});

/** An evidence line is a record of its own kind (verdict, decision, answer…): free-form here. */
const evidenceSchema = z.record(z.string(), z.unknown());

/**
 * A board row: the record, its reason in words (`said`, core/reason-words.ts, for pages; `reason`
 * keeps the codes), a live job's warnings, and for a blocked job when it blocked (ISO) and what it asks.
 */
export const boardRowSchema = jobRecordSchema.extend({ said: z.string().optional(), warnings: z.array(warningSchema).optional(), blocked_since: iso.optional(), question: z.string().optional() });

/** show's `prompt` (daemon/commands/prompt-view.ts): what the job is blocked on and the rule's choices. */
export const promptViewSchema = z.object({
  episode: z.string().nullable(),
  text: z.string(),
  rule: z.string().nullable(),
  class: z.string().nullable(),
  decision: z.string(),
  layer: z.string(),
  why: z.string(),
  command: z.string().nullable(),
  /** What is being approved, in plain sight: the command, the file or the URL the prompt names. */
  subject: z.object({ kind: z.enum(['command', 'file', 'url']), text: z.string() }).nullable(),
  /** The risk words the prompt hit (rules/risk.yaml). */
  risk: z.array(z.string()),
  /** The class and risk in the words pages use ("needs your permission", "destructive («rm -rf»)"). */
  risk_words: z.string().nullable(),
  choices: z.array(z.object({ choice: z.enum(['answer', 'decline']), keys: z.array(z.string()), label: z.string() })),
  /** The dialog's own numbered options (`2. Yes, allow once`), each answered by its digit; none that widens a permission. */
  options: z.array(z.object({ key: z.string(), label: z.string() })),
});

/**
 * `show`. Like every result schema here a plain z.object: a key it does not
 * name is not an error, and since the client passes the reply on as sent
 * (command.ts checkResult), such a key still reaches `show --json`.
 */
export const shownSchema = z.object({
  job: jobRecordSchema,
  transitions: z.array(transitionSchema),
  signals: signalsSchema.nullable(),
  rules_coverage: rulesCoverageSchema.nullable(),
  warnings: z.array(warningSchema),
  screen: z.string().nullable(),
  evidence: z.array(evidenceSchema),
  pages: z.array(outboxRowSchema),
  prompt: promptViewSchema.nullable(),
  said: z.string().optional(),
});

/** What a person deciding needs of the prompt a job is blocked on. */
export type PromptView = z.output<typeof promptViewSchema>;
export type PromptChoice = PromptView['choices'][number];
export type PromptSubject = NonNullable<PromptView['subject']>;

export const evidenceListSchema = z.object({ records: z.array(evidenceSchema) });

const loopDelaySchema = z.object({ max_ms: z.number(), p99_ms: z.number(), mean_ms: z.number(), samples: z.number(), since: iso });

const deliverySchema = z.object({
  notifier: z.string(),
  status: outboxRowSchema.shape.status,
  round: z.number(),
  attempts: z.number(),
  delivered: isoOrNull,
  next_try: isoOrNull,
  error: z.string().nullable(),
});

const lastPageSchema = z.object({
  key: z.string(),
  job: z.string(),
  name: z.string(),
  kind: z.enum(PAGE_KINDS),
  reason: z.string(),
  queued: iso,
  deliveries: z.array(deliverySchema),
});

/** `status` (daemon/commands/status.ts). */
export const statusSchema = z.object({
  pid: z.number(),
  version: z.string(),
  started: iso,
  state_dir: z.string(),
  config_file: z.string().nullable(),
  policy_file: z.string().nullable(),
  rules: z.string(),
  notifiers: z.array(z.object({ name: z.string(), kind: z.string() })),
  warnings: z.array(z.string()),
  web_url: z.string().nullable(),
  slots: z.object({ used: z.number(), max: z.number(), running: z.number(), blocked: z.number(), starting: z.number() }),
  queued: z.number(),
  adopted: z.number(),
  last_page: lastPageSchema.nullable(),
  counts: z.object({ queued: z.number(), running: z.number(), blocked: z.number(), done: z.number() }),
  max_running: z.number(),
  event_loop: loopDelaySchema,
});

/** `page-test`: one line per notifier (notify/test-page.ts). */
export const pageTestSchema = z.object({
  results: z.array(z.object({ notifier: z.string(), kind: z.string(), ok: z.boolean(), error: z.string().nullable() })),
});

export const submittedSchema = z.object({ job: jobRecordSchema, notice: z.string().nullable() });
export const boardSchema = z.object({ jobs: z.array(boardRowSchema) });
export const answeredSchema = z.object({ job: z.string(), keys: z.array(z.string()).readonly(), answered_by: z.string() });
export const jobIdSchema = z.object({ job: z.string() });
export const continuedSchema = z.object({ job: z.string(), by: z.string(), was: z.string() });
export const keyedSchema = z.object({ job: z.string(), key: z.string() });
export const cancelledSchema = z.object({ job: z.string(), cancelled: z.boolean(), by: z.string() });
export const ackedSchema = z.object({ job: z.string(), acknowledged: z.number() });
/** null when the client ended the attach itself (detach): the daemon's reply never came. */
export const prunedSchema = z.object({
  dry_run: z.boolean(),
  before: iso,
  jobs: z.array(z.object({ id: z.string(), name: z.string(), ended: isoOrNull, dir: z.string().nullable(), bytes: z.number() })),
  bytes: z.number(),
});

/** `web-token`, `web-revoke`, `web-list` (daemon/commands/web.ts). */
const webRole = z.enum(WEB_ROLES);
export const tokenMadeSchema = z.object({ name: z.string(), token: z.string(), login_url: z.string().nullable(), role: webRole });
/** `token` false: NAME had no token, and what ended was a page person's sessions and codes. */
export const revokedSchema = z.object({ name: z.string(), revoked: z.literal(true), token: z.boolean(), sessions: z.number(), codes: z.number() });
export const peopleSchema = z.object({
  people: z.array(z.object({ name: z.string(), role: webRole, created: z.string(), last_used: z.string().nullable(), revoked: z.string().nullable() })),
});

export const attachedSchema = z.object({ job: z.string(), state: jobStateSchema }).nullable();
/** How the daemon stops (daemon-stop.ts): finish the jobs, stop them, or leave them running for the next daemon. */
export const stopModeSchema = z.enum(['drain', 'now', 'detach']);
export type StopMode = z.output<typeof stopModeSchema>;
export const stoppingSchema = z.object({ stopping: stopModeSchema, running: z.number() });

/** `digest` (api/digest.ts): needs you, ended badly, answered for you, cost, probes. */
export const digestSchema = z.object({
  generated: iso,
  since: iso,
  needs_you: z.array(z.object({ id: z.string(), name: z.string(), reason: z.string(), question: z.string(), blocked_since: iso, waited_ms: z.number(), next: z.array(z.string()) })),
  ended_badly: z.array(
    z.object({ id: z.string(), name: z.string(), ended: iso, why: z.string(), exit_code: z.number().nullable(), last_lines: z.array(z.string()), next: z.array(z.string()) }),
  ),
  answered: z.array(z.object({ id: z.string(), name: z.string(), time: iso, rule: z.string().nullable(), class: z.string().nullable(), what: z.string() })),
  cost: z.array(z.object({ id: z.string(), name: z.string(), state: jobStateSchema, wall_ms: z.number().nullable(), tokens: z.number().nullable(), steps: z.number().nullable() })),
  probes: z.array(z.object({ probe: z.string(), count: z.number() })),
});

/** Both ways assignable: the schema and the hand-written type describe the same record. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** Compile-time only: a field added to a record type but not here (or the other way) fails the build. */
export type SchemasMatchTypes = [
  Assert<Same<z.output<typeof jobRecordSchema>, JobRecord>>,
  Assert<Same<z.output<typeof transitionSchema>, TransitionRecord>>,
  Assert<Same<z.output<typeof pageSchema>, Page>>,
  Assert<Same<z.output<typeof outboxRowSchema>, OutboxRow>>,
  Assert<Same<z.output<typeof digestSchema>, Digest>>,
];
