/** What each control-socket command does. Arguments are validated here, at the boundary. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { JobRecord } from '../board/types.js';
import { keySequence } from '../pty/keys.js';
import { loadPolicy } from '../rules/policy-file.js';
import { InputError } from '../util/errors.js';
import type { Daemon } from './daemon.js';
import type { DaemonJob } from './daemon-job.js';
import type { CallContext, Handler } from './server.js';
import { inheritEnv, maskJob, maskShown } from './job-secrets.js';

const str = (args: Record<string, unknown>, key: string): string => {
  const v = args[key];
  if (typeof v !== 'string' || v === '') throw new InputError(`${key} must be a non-empty string`);
  return v;
};

function liveJob(d: Daemon, rec: JobRecord): DaemonJob {
  const job = d.jobs.get(rec.id);
  if (!job) throw new InputError(`job ${rec.name} is ${rec.state} (${rec.reason.code}), not running`);
  return job;
}

export function handlers(daemon: () => Daemon): Record<string, Handler> {
  const d = daemon;
  return {
    status: async () => ({ pid: process.pid, state_dir: d().opts.stateDir, counts: d().board.counts(), max_running: d().opts.maxRunning }),
    // Records leave the daemon masked: secret-looking env values are ***, the job's own values redacted.
    submit: async (args) => maskJob(await submit(d(), args)),
    board: async () => d().board.list().map((rec) => maskJob(rec)),
    show: async (args) => maskShown(show(d(), str(args, 'job'))),
    answer: async (args) => {
      const rec = d().board.require(str(args, 'job'));
      if (rec.state !== 'blocked') throw new InputError(`job ${rec.name} is not blocked (it is ${rec.state}: ${rec.reason.code}); nothing to answer`);
      const who = typeof args.who === 'string' && args.who ? args.who : 'unknown';
      const keys = await liveJob(d(), rec).live.answer(str(args, 'text'), who);
      d().pager.ack(rec.id);
      return { job: rec.id, keys, answered_by: `human:${who}` };
    },
    send: async (args) => {
      const rec = d().board.require(str(args, 'job'));
      await liveJob(d(), rec).live.sendText(str(args, 'text'), args.enter !== false);
      return { job: rec.id };
    },
    key: async (args) => {
      const rec = d().board.require(str(args, 'job'));
      const name = str(args, 'key');
      keySequence(name);
      liveJob(d(), rec).live.sendKey(name);
      return { job: rec.id, key: name };
    },
    cancel: async (args) => cancel(d(), str(args, 'job')),
    ack: async (args) => {
      const rec = d().board.require(str(args, 'job'));
      return { job: rec.id, acknowledged: d().pager.ack(rec.id) };
    },
    attach: async (args, ctx) => attach(d(), str(args, 'job'), ctx),
    logs: async (args, ctx) => logs(d(), str(args, 'job'), args.follow === true, ctx),
    stop: async (args) => {
      const mode = args.now === true ? 'now' : 'drain';
      setImmediate(() => void d().stop(mode));
      return { stopping: mode, running: d().running().length };
    },
  };
}

function submit(d: Daemon, args: Record<string, unknown>): Promise<JobRecord> | JobRecord {
  const spec = inheritEnv(d.board, args.spec) as Record<string, unknown> | undefined;
  if (!spec || typeof spec !== 'object') throw new InputError('submit needs a spec');
  const cwd = String(spec.cwd ?? '');
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new InputError(`--cwd ${cwd} is not an existing directory`);
  const policy = spec.policy === null || spec.policy === undefined ? null : String(spec.policy);
  const check = policy ? loadPolicy(policy) : Promise.resolve(null);
  return check.then(() => {
    const rec = d.board.submit(spec as never, Date.now());
    d.schedule();
    return d.board.require(rec.id);
  });
}

function show(d: Daemon, idOrName: string) {
  const rec = d.board.require(idOrName);
  const job = d.jobs.get(rec.id);
  const status = job?.live.watchdog.status();
  return {
    job: rec,
    transitions: d.board.transitions(rec.id),
    signals: status
      ? {
          last_screen_change: new Date(status.lastScreenChange).toISOString(),
          last_output: status.lastOutput === null ? null : new Date(status.lastOutput).toISOString(),
          last_tool_event: status.lastToolEvent === null ? null : new Date(status.lastToolEvent).toISOString(),
          tools_in_flight: status.toolsInFlight,
          child_busy: status.procBusy,
          prompt_candidate: status.promptCandidate,
        }
      : null,
    screen: job ? job.live.screen.text() : finalScreen(rec),
    evidence: lastEvidence(rec, 3),
    pages: d.pager.history(rec.id),
  };
}

function finalScreen(rec: JobRecord): string | null {
  if (!rec.paths || !existsSync(rec.paths.summary)) return null;
  try {
    return (JSON.parse(readFileSync(rec.paths.summary, 'utf8')) as { final_screen?: string }).final_screen ?? null;
  } catch {
    return null;
  }
}

function lastEvidence(rec: JobRecord, n: number): unknown[] {
  if (!rec.paths || !existsSync(rec.paths.evidence)) return [];
  const lines = readFileSync(rec.paths.evidence, 'utf8').split('\n').filter(Boolean);
  return lines.slice(-n).map((l) => JSON.parse(l) as unknown);
}

async function cancel(d: Daemon, idOrName: string) {
  const rec = d.board.require(idOrName);
  if (rec.state === 'done') throw new InputError(`job ${rec.name} is already done (${rec.reason.code})`);
  const job = d.jobs.get(rec.id);
  if (!job && d.jobs.has(rec.id)) {
    d.cancelOnStart.add(rec.id);
  } else if (!job) {
    d.board.transition(rec.id, 'done', { code: 'cancelled', detail: 'cancelled before it started' }, Date.now());
  } else {
    void job.live.stop('cancelled');
  }
  return { job: rec.id, cancelled: true };
}

/** Live view: the current screen, then everything the job prints; input goes to the job. */
async function attach(d: Daemon, idOrName: string, ctx: CallContext) {
  const rec = d.board.require(idOrName);
  const job = liveJob(d, rec);
  ctx.stream(`\x1b[2J\x1b[H${job.live.screen.text().split('\n').join('\r\n')}`);
  const stop = job.live.watchOutput((data) => ctx.stream(data));
  ctx.onInput((data) => job.live.input(data));
  await new Promise<void>((resolve) => {
    ctx.onClose(resolve);
    void job.live.finished.then(() => resolve());
  });
  stop();
  return { job: rec.id, state: d.board.require(rec.id).state };
}

async function logs(d: Daemon, idOrName: string, follow: boolean, ctx: CallContext) {
  const rec = d.board.require(idOrName);
  if (!rec.paths) throw new InputError(`job ${rec.name} has not started; no logs yet`);
  const file = rec.paths.log;
  let offset = 0;
  const pump = () => {
    if (!existsSync(file)) return;
    const text = readFileSync(file, 'utf8');
    if (text.length > offset) {
      ctx.stream(text.slice(offset));
      offset = text.length;
    }
  };
  pump();
  const job = d.jobs.get(rec.id);
  if (follow && job) {
    await new Promise<void>((resolve) => {
      const timer = setInterval(pump, 250);
      const end = () => {
        clearInterval(timer);
        pump();
        resolve();
      };
      ctx.onClose(end);
      void job.live.finished.then(end);
    });
  }
  return { job: rec.id };
}
