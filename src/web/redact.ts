/**
 * The one redaction every web route that serves job data goes through: API
 * answers (board, show, evidence, digest …), the recording (header and
 * events) and the terminal socket's frames. Strings lose the job's own
 * `--env` values and every secret pattern (notify/secrets.ts); every `env`
 * record shows its names with masked values, unless config `web.show_env`
 * says the web may show them. The CLI's `show` on the machine is where an
 * operator reads clear values.
 */
import type { Board } from '../board/board.js';
import { MASK, maskEnv, redactDeep, redactorFor, type Redactor } from '../notify/secrets.js';

export interface WebRedactionOptions {
  /** `web.show_env`: env values in clear for everyone signed in. */
  readonly showEnv: boolean;
}

export class WebRedaction {
  constructor(
    private readonly board: Pick<Board, 'get'>,
    private readonly opts: WebRedactionOptions,
  ) {}

  /** The job's Redactor (its own env values, then the patterns); the patterns alone for no job or an unknown one. */
  redactorOf(job?: string): Redactor {
    return redactorFor(job === undefined ? undefined : this.board.get(job)?.env);
  }

  /**
   * A JSON answer fit for the web: every string redacted, every env record
   * masked whole; with `web.show_env`, env records as the daemon gives them
   * (names that look secret still ***, notify/secrets.ts maskEnv) but the values not redacted.
   */
  json<T>(value: T, r: Redactor): T {
    const env = (e: unknown): unknown => (!isStringRecord(e) ? redactDeep(e, r) : this.opts.showEnv ? maskEnv(e) : maskAll(e));
    return redactDeep(value, r, { env });
  }

  /**
   * One line of an asciicast: the header (an object: its command, title and
   * env) or an event `[time, code, text]`; the line stays valid JSON. A line
   * that is not JSON is redacted as text.
   */
  castLine(line: string, r: Redactor): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return r(line);
    }
    // Events are most of a recording: only their text is looked at.
    if (Array.isArray(parsed) && typeof parsed[2] === 'string') {
      const text = r(parsed[2]);
      return text === parsed[2] ? line : JSON.stringify([parsed[0], parsed[1], text, ...parsed.slice(3)]);
    }
    return JSON.stringify(this.json(parsed, r));
  }
}

const maskAll = (env: Record<string, string>): Record<string, string> => Object.fromEntries(Object.keys(env).map((k) => [k, MASK]));

const isStringRecord = (x: unknown): x is Record<string, string> =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && Object.values(x).every((s) => typeof s === 'string');
