/**
 * The daemon's handler for each command record (src/api/commands.ts). The
 * table has found each record's target before its handler runs. Handlers
 * with more than a few lines live in commands/.
 */
import { COMMAND_LIST } from '../api/commands.js';
import type { StopMode } from '../api/results.js';
import { keySequence } from '../core/keys.js';
import { reasonInWords } from '../core/reason-words.js';
import { byLabel, type AnswerInput } from '../supervisor/person-acts.js';
import { ConflictError, InputError } from '../util/errors.js';
import { bind, liveJob, type DaemonCommand, type Handlers } from './command.js';
import { cancel, evidence, show, submit } from './commands/jobs.js';
import { attach, logs } from './commands/streams.js';
import { statusOf } from './commands/status.js';
import { boardOf, digestOf } from './commands/digest.js';
import { testPage } from '../notify/test-page.js';
import { WEB_HANDLERS } from './commands/web.js';
import { inheritEnv, maskJob, maskShown } from '../notify/job-secrets.js';
import { pruneJobs } from './prune.js';

const HANDLERS: Handlers = {
  status: (h, a) => statusOf(h, a.reset_loop === true),
  'page-test': async (h) => ({ results: await h.pager.test(testPage(Date.now(), `the daemon (pid ${process.pid})`)) }),
  // Records leave the daemon masked: secret-looking env values are ***, the job's own values redacted (job-secrets.ts).
  submit: async (h, a) => {
    const done = await submit(h, inheritEnv(h.board, a.spec) as Record<string, unknown>);
    return { ...done, job: maskJob(done.job) };
  },
  board: (h) => boardOf(h),
  digest: (h, a) => digestOf(h, a.since_ms, Date.now()),
  show: async (h, _a, { rec }) => {
    const shown = maskShown(await show(h, rec));
    return { ...shown, said: reasonInWords(shown.job.reason) };
  },
  evidence: (_h, a, { rec }) => evidence(rec, a.limit),
  answer: async (h, a, { rec }) => {
    if (rec.state !== 'blocked') throw new ConflictError(`job ${rec.name} is not blocked (it is ${rec.state}: ${rec.reason.code}); nothing to answer`);
    const by = byLabel(a.who);
    const live = liveJob(h, rec, 'answer');
    if (a.episode !== undefined && live.blockedEpisode !== a.episode) {
      throw new ConflictError(`job ${rec.name} has moved on from the question you answered (${a.episode}; now ${live.blockedEpisode ?? rec.reason.code}); nothing was sent`);
    }
    const input: AnswerInput = a.text !== undefined ? { text: a.text } : a.key !== undefined ? { key: a.key } : { choice: a.choice! };
    const keys = await live.acts.answer(input, by);
    h.pager.ack(rec.id);
    return { job: rec.id, keys, answered_by: by };
  },
  send: async (_h, a, { rec, live }) => {
    await live.acts.send(a.text, a.enter !== false, a.who);
    return { job: rec.id };
  },
  continue: (h, a, { rec, live }) => {
    const was = rec.reason.code;
    live.acts.continueJob(a.who);
    h.pager.ack(rec.id);
    return { job: rec.id, by: `human:${a.who}`, was };
  },
  key: (h, a, { rec }) => {
    keySequence(a.key);
    liveJob(h, rec, 'press keys in').acts.key(a.key, a.who);
    return { job: rec.id, key: a.key };
  },
  cancel: (h, a, { rec }) => cancel(h, rec, a.who),
  ack: (h, _a, { rec }) => ({ job: rec.id, acknowledged: h.pager.ack(rec.id) }),
  attach: (h, a, { rec, live }, ctx) => attach(h, rec, live, ctx, a.who),
  logs: (h, a, { rec }, ctx) => logs(h, rec, a.follow === true, ctx),
  prune: (h, a) =>
    pruneJobs(h.board, h.opts.stateDir, {
      olderThanMs: a.older_than_ms,
      now: Date.now(),
      dryRun: a.dry_run === true,
      busy: (id) => h.live(id) !== undefined,
      closePages: (id) => h.pager.resolve(id),
    }),
  stop: (h, a) => {
    if (a.now === true && a.detach === true) throw new InputError('--now stops the jobs and --detach leaves them running: give one of them');
    const mode: StopMode = a.now === true ? 'now' : a.detach === true ? 'detach' : 'drain';
    setImmediate(() => void h.stop(mode));
    return { stopping: mode, running: h.runningCount };
  },
  ...WEB_HANDLERS,
};

/** Every command with its handler: what the transports run. */
export const COMMAND_TABLE: readonly DaemonCommand[] = bind(COMMAND_LIST, HANDLERS);
