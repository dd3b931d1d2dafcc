/**
 * A page's one-tap actions (issue 11.6): `POST /a/CODE` from ntfy's
 * Decline button. The code is redeemed by the server; what it may still do
 * is decided here, against the job as it is now: a tap that arrives after
 * the job moved on must send nothing, since its keys would land on
 * whatever the terminal shows by then.
 */
import type { Daemon } from '../daemon/daemon.js';
import { handlers } from '../daemon/handlers.js';
import { describeError } from '../util/errors.js';
import { webActor, type CodePurpose, type RedeemedCode } from './types.js';

export interface CodeActionResult {
  status: number;
  message: string;
}

type ActionPurpose = Extract<CodePurpose, { kind: 'action' }>;

/** A one-shot context: `answer` streams nothing. */
const NO_STREAM = { stream: () => undefined, onInput: () => undefined, onClose: () => undefined, closed: false };

export async function runCodeAction(d: Daemon, redeemed: RedeemedCode, ip?: string): Promise<CodeActionResult> {
  const { person, purpose } = redeemed;
  if (purpose.kind !== 'action') return done(d, redeemed, ip, { status: 400, message: 'this code signs in; it is no action' });
  if (person.role !== 'operator') return done(d, redeemed, ip, { status: 403, message: `${person.name} is a viewer and may not answer` });
  const refusal = declineRefusal(d, purpose);
  if (refusal) return done(d, redeemed, ip, { status: 409, message: refusal });
  try {
    const r = (await handlers(() => d).run('answer', { job: purpose.job, choice: 'decline', who: webActor(person.name) }, NO_STREAM)) as {
      keys: readonly string[];
    };
    return done(d, redeemed, ip, { status: 200, message: `declined: sent ${r.keys.join(' ')}` });
  } catch (e) {
    // Checked a moment ago, so the job changed in between: the same answer as a late tap.
    return done(d, redeemed, ip, { status: 409, message: describeError(e) });
  }
}

/**
 * Why the decline may not go (a sentence), or null: the job must still be
 * live, blocked on a known prompt, in the very episode the page was for,
 * and that prompt's rule must have decline keys.
 */
export function declineRefusal(d: Daemon, p: ActionPurpose): string | null {
  const rec = d.board.get(p.job);
  if (!rec) return `job ${p.job} is not on the board any more`;
  const job = d.live(rec.id);
  if (rec.state !== 'blocked' || !job) return `job ${rec.name} is ${rec.state} now; the question this page was about is gone, nothing was sent`;
  if (job.blockedEpisode !== p.episode) return `job ${rec.name} has moved on since this page (${p.episode}); nothing was sent`;
  const rule = job.blockedRule();
  if (!rule || rule.decline.length === 0) return `job ${rec.name} is blocked on a question with no safe decline; answer it on the job's page`;
  return null;
}

function done(d: Daemon, r: RedeemedCode, ip: string | undefined, result: CodeActionResult): CodeActionResult {
  const job = r.purpose.kind === 'action' ? r.purpose.job : undefined;
  try {
    d.webAuth?.audit({ who: r.person.name, action: 'decline', ...(job ? { job } : {}), ok: result.status === 200, ...(ip ? { ip } : {}), detail: result.message }, Date.now());
  } catch (e) {
    d.log.error({ err: e }, 'audit entry could not be written');
  }
  return result;
}
