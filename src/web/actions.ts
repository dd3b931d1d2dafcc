/**
 * A page's one-tap actions: `POST /a/CODE` from ntfy's
 * Decline button. The code is redeemed by the server; what it may still do
 * is decided here, against the job as it is now: a tap that arrives after
 * the job moved on must send nothing, since its keys would land on
 * whatever the terminal shows by then.
 */
import { NO_STREAM, type CommandRunner } from '../api/command.js';
import { describeError } from '../util/errors.js';
import type { CodePurpose, RedeemedCode } from '../people/types.js';
import { webActor, type WebHost } from './types.js';

export interface CodeActionResult {
  status: number;
  message: string;
}

type ActionPurpose = Extract<CodePurpose, { kind: 'action' }>;

/** Where a tap came from and when: for the audit line. */
export interface TapContext {
  readonly ip?: string;
  readonly now: number;
}

/** `commands`: the daemon's own table, so a tap is the `answer` command as the socket and the API run it. */
export async function runCodeAction(d: WebHost, commands: CommandRunner, redeemed: RedeemedCode, tap: TapContext): Promise<CodeActionResult> {
  const { person, purpose } = redeemed;
  const done = (result: CodeActionResult) => audited(d, redeemed, tap, result);
  if (purpose.kind !== 'action') return done({ status: 400, message: 'this code signs in; it is no action' });
  if (person.role !== 'operator') return done({ status: 403, message: `${person.name} is a viewer and may not answer` });
  const refusal = declineRefusal(d, purpose);
  if (refusal) return done({ status: 409, message: refusal });
  try {
    // The episode goes along: the command itself refuses a job that moved on since the check above.
    const args = { job: purpose.job, choice: 'decline', episode: purpose.episode, who: webActor(person.name) };
    const r = (await commands.run('answer', args, NO_STREAM)) as { keys: readonly string[] };
    return done({ status: 200, message: `declined: sent ${r.keys.join(' ')}` });
  } catch (e) {
    // Checked a moment ago, so the job changed in between: the same answer as a late tap.
    return done({ status: 409, message: describeError(e) });
  }
}

/**
 * Why the decline may not go (a sentence), or null: the job must still be
 * live, blocked on a known prompt, in the very episode the page was for,
 * and that prompt's rule must have decline keys.
 */
export function declineRefusal(d: WebHost, p: ActionPurpose): string | null {
  const rec = d.board.get(p.job);
  if (!rec) return `job ${p.job} is not on the board any more`;
  const job = d.live(rec.id);
  if (rec.state !== 'blocked' || !job) return `job ${rec.name} is ${rec.state} now; the question this page was about is gone, nothing was sent`;
  if (job.blockedEpisode !== p.episode) return `job ${rec.name} has moved on since this page (${p.episode}); nothing was sent`;
  const rule = job.view.blockedRule();
  if (!rule || rule.decline.length === 0) return `job ${rec.name} is blocked on a question with no safe decline; answer it on the job's page`;
  return null;
}

function audited(d: WebHost, r: RedeemedCode, tap: TapContext, result: CodeActionResult): CodeActionResult {
  const job = r.purpose.kind === 'action' ? r.purpose.job : undefined;
  try {
    d.webAuth.audit({ who: r.person.name, action: 'decline', ...(job ? { job } : {}), ok: result.status === 200, ...(tap.ip ? { ip: tap.ip } : {}), detail: result.message }, tap.now);
  } catch (e) {
    d.log.error({ err: e }, 'audit entry could not be written');
  }
  return result;
}
