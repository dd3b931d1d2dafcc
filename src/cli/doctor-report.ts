/**
 * What `nightshift doctor` finds: the files a daemon on this state folder
 * would load, loaded by the daemon's own loaders (a bad one throws its
 * FILE:LINE InputError), every credential reference resolved, and what that
 * means for the night: who is paged about what, and what is auto-answered.
 * Reads only: starts nothing, sends nothing.
 */
import { runningDaemonPid } from '../daemon/lock.js';
import { loadNotifyConfig, PAGE_SEND_KINDS, type NotifyConfig } from '../notify/config.js';
import { credentialWarnings } from '../notify/startup.js';
import { loadProbeConfig } from '../probes/profiles-file.js';
import type { Policy } from '../responder/policy.js';
import { loadBundle } from '../rules/bundle.js';
import { policyPathOf } from './common.js';
import { probesFile } from '../supervisor/agent-option.js';
import { formatDuration } from '../util/duration.js';
import { findConfig } from '../util/home.js';

export interface DoctorInput {
  stateDir: string;
  rulesPath: string;
  /** `--policy`, as the daemon's flag: it wins over the policy.yaml found. */
  policy: string | null;
  env: NodeJS.ProcessEnv;
}

export interface NotifierCheck {
  name: string;
  kind: string;
  /** Why a credential cannot be used now; empty when every one resolves. */
  problems: string[];
}

export interface DoctorReport {
  state_dir: string;
  daemon_pid: number | null;
  config: { file: string | null; looked: readonly string[] };
  notifiers: NotifierCheck[];
  /** The kinds of page sent; every kind unless `pages.send` narrows it. */
  page_kinds: string[];
  quiet_hours: { start: string; end: string; urgent: string[] } | null;
  repage_after_ms: number | null;
  public_url: string | null;
  policy: { file: string | null; auto_answers: string[]; on_unanswered_ms: number | null };
  rules: { path: string; files: number; prompts: number; questions: number; risks: number };
  probes: string | null;
  /** What will not work tonight, one line each; doctor exits 1 when there is any. */
  warnings: string[];
}

export async function doctor(input: DoctorInput): Promise<DoctorReport> {
  const { stateDir, rulesPath, env } = input;
  const found = findConfig(stateDir, env);
  const cfg = found.file ? await loadNotifyConfig(found.file) : loadNotifyConfig.empty();
  const policyFile = policyPathOf(input.policy ?? undefined, stateDir, rulesPath, env);
  const bundle = await loadBundle(rulesPath, policyFile);
  const probes = probesFile(rulesPath);
  if (probes) await loadProbeConfig(probes);
  const notifiers = await checkNotifiers(cfg, env);
  return {
    state_dir: stateDir,
    daemon_pid: runningDaemonPid(stateDir),
    config: found,
    notifiers,
    page_kinds: cfg.pageKinds,
    quiet_hours: cfg.quietHours && { start: clock(cfg.quietHours.start), end: clock(cfg.quietHours.end), urgent: cfg.quietHours.urgent },
    repage_after_ms: cfg.repageAfterMs,
    public_url: cfg.links?.publicUrl ?? null,
    policy: policySummary(bundle.policy, policyFile),
    rules: { path: rulesPath, files: bundle.rules.files.length, prompts: bundle.rules.prompts.length, questions: bundle.rules.questions.length, risks: bundle.rules.risks.length },
    probes,
    warnings: warningsOf(cfg, notifiers),
  };
}

/** Each notifier with the problems of its own references (startup.ts's check, one notifier at a time). */
async function checkNotifiers(cfg: NotifyConfig, env: NodeJS.ProcessEnv): Promise<NotifierCheck[]> {
  const out: NotifierCheck[] = [];
  for (const n of cfg.notifiers) {
    const prefix = `notifier ${n.name}: `;
    const problems = (await credentialWarnings({ ...cfg, notifiers: [n] }, env)).map((w) => w.slice(prefix.length));
    out.push({ name: n.name, kind: n.kind, problems });
  }
  return out;
}

function warningsOf(cfg: NotifyConfig, notifiers: readonly NotifierCheck[]): string[] {
  const none = cfg.notifiers.length === 0 ? ['no notifiers: nobody will be paged'] : [];
  const kinds = cfg.pageKinds.length === 0 ? ['pages.send is empty: nobody will be paged about anything'] : [];
  return [...none, ...kinds, ...notifiers.flatMap((n) => n.problems.map((p) => `notifier ${n.name}: ${p}`))];
}

function policySummary(p: Policy, file: string | null): DoctorReport['policy'] {
  return {
    file,
    auto_answers: p.allow.map((a) => `${a.ecosystem} ${a.name}${a.range ? ` ${a.range}` : ''}`),
    on_unanswered_ms: p.onUnanswered?.afterMs ?? null,
  };
}

const clock = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The report for a person; the warnings are printed apart (stderr). */
export function doctorText(r: DoctorReport): string {
  const rows: Array<[string, string]> = [
    ['state', `${r.state_dir} (${r.daemon_pid === null ? 'no daemon running' : `daemon running, pid ${r.daemon_pid}`})`],
    ['config', r.config.file ?? `none found (looked in ${r.config.looked.join(', ')})`],
    ...notifierRows(r.notifiers),
    ['pages', pageKindsText(r.page_kinds)],
    ['quiet hours', r.quiet_hours ? `${r.quiet_hours.start}–${r.quiet_hours.end}${r.quiet_hours.urgent.length ? `, still paged: ${r.quiet_hours.urgent.join(', ')}` : ''}` : 'none'],
    ['re-page', r.repage_after_ms === null ? 'off' : `every ${formatDuration(r.repage_after_ms)} until acknowledged`],
    ['page links', r.public_url ?? 'none (no notify.public_url)'],
    ['policy', `${r.policy.file ?? 'none'}: ${policyText(r.policy)}`],
    ['rules', `${r.rules.prompts} prompt rules, ${r.rules.questions} question hints, ${r.rules.risks} risk patterns in ${r.rules.files} file(s) under ${r.rules.path}`],
    ['probes', r.probes ?? 'none'],
  ];
  return rows.map(([k, v]) => `${k ? `${k}:` : ''}`.padEnd(13) + v).join('\n');
}

function notifierRows(list: readonly NotifierCheck[]): Array<[string, string]> {
  if (list.length === 0) return [['notifiers', 'none — nobody will be paged']];
  return list.map((n, i) => [i === 0 ? 'notifiers' : '', `${n.name === n.kind ? n.kind : `${n.kind}(${n.name})`}: ${n.problems.length ? n.problems.join('; ') : 'credentials resolve'}`]);
}

function pageKindsText(kinds: readonly string[]): string {
  if (kinds.length === PAGE_SEND_KINDS.length) return 'every kind';
  const left = PAGE_SEND_KINDS.filter((k) => !kinds.includes(k));
  return `${kinds.join(', ') || 'nothing'} (not paged: ${left.join(', ')})`;
}

function policyText(p: DoctorReport['policy']): string {
  const answers = p.auto_answers.length ? `auto-answers ${p.auto_answers.join(', ')}` : 'auto-answers nothing';
  return p.on_unanswered_ms === null ? answers : `${answers}; declines a paged prompt left unanswered for ${formatDuration(p.on_unanswered_ms)}`;
}
