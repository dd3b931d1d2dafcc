/**
 * Replays a recording through the same Screen and Watchdog a live job uses,
 * in virtual time: the clock jumps from event to event, stopping at every
 * watchdog deadline on the way, so hours of recording take milliseconds.
 */
import { ManualClock } from '../core/clock.js';
import type { Transition } from '../core/task-state.js';
import { nextLook } from '../core/screen-looks.js';
import { parseMarker } from '../core/tool-events.js';
import { Watchdog } from '../core/watchdog.js';
import { SCREEN_SAMPLE_MS, type Action, type PromptResponder, type WatchdogConfig, type WatchdogRules } from '../core/watchdog-types.js';
import type { Cast, CastEvent } from '../record/asciicast.js';
import type { CastSource } from '../record/cast-stream.js';
import { COLLAPSE_MIN, Screen } from '../screen/screen.js';
import type { ProbeProfile } from '../probes/index.js';
import { DrillAgent } from './drill-agent.js';

export interface Replay {
  /** Seconds from the first to the last event (the end marker or exit). */
  readonly duration: number;
  readonly transitions: readonly Transition[];
  readonly actions: readonly Action[];
  readonly bytes: number;
  /** How many times the watchdog was shown the screen. */
  readonly looks: number;
}

/**
 * The recording's environment (registry settings recorded with the job)
 * stands in for the job's, so a drill judges sources as the live run did.
 */
export async function replayCast(
  cast: Cast | CastSource,
  rules: WatchdogRules,
  config: WatchdogConfig,
  responder?: PromptResponder,
  probes?: ProbeProfile,
): Promise<Replay> {
  const clock = new ManualClock(0);
  const env = cast.header.env ?? {};
  const wd = new Watchdog(rules, clock, config, { ...(responder ? { responder } : {}), env });
  // A probe's escalation blocks the job as live (the watchdog pages it); nudges and stops stay the agent's actions.
  const agent = probes ? new DrillAgent(probes, clock, (probe, text) => wd.observe({ kind: 'probe', probe, text })) : undefined;
  const screen = new Screen(cast.header.width, cast.header.height);
  const feed = new SampledFeed(screen, wd, clock);
  let bytes = 0;
  let end = 0;
  try {
    wd.start();
    let done = false;
    for await (const batch of 'batches' in cast ? cast.batches : [cast.events]) {
      // Past the end of the job the rest is only read for its last time: the duration is the recording's.
      end = batch.at(-1)?.t ?? end;
      for (let i = 0; i < batch.length && !done; i++) {
        const ev = batch[i]!;
        const t = Math.round(ev.t * 1_000);
        // Most events need no look and no parse: awaiting only what returns a promise keeps a drill parse-bound.
        const looked = feed.flushBefore(t);
        if (looked) await looked;
        advance(wd, clock, t);
        if (ev.code === 'o') {
          const written = feed.write(ev.data);
          if (written) await written;
          bytes += ev.data.length;
        } else await apply(ev, wd, feed, agent);
        done = wd.state === 'done';
      }
    }
    await feed.flush();
    advance(wd, clock, Math.round(end * 1_000));
    const actions = [...wd.actions, ...(agent?.actions ?? [])].sort((a, b) => a.t - b.t);
    return { duration: end, transitions: wd.history, actions, bytes, looks: feed.looks };
  } finally {
    screen.dispose();
  }
}

/**
 * Shows the watchdog the screen when nextLook (src/core/screen-looks) says a
 * look is due, and always before a deadline or a marker, exactly as the
 * live ScreenFeed does: reading the screen costs more than parsing output.
 * Output is handed to xterm only when the screen is about to be looked at
 * (or a few MB have piled up): nobody reads it in between, and one write per
 * recorded chunk cost a promise and a parser wake-up each.
 */
class SampledFeed {
  private lastSeen = -Infinity;
  private lastOutput = -Infinity;
  /** The screen's scrolledLines at the last look. */
  private scrollAtLook = 0;
  /** Output scrolled the screen since the last look (known once output was parsed to find out). */
  private scrolled = false;
  private pending = false;
  private unparsed: string[] = [];
  private unparsedLength = 0;
  looks = 0;

  constructor(
    private readonly screen: Screen,
    private readonly wd: Watchdog,
    private readonly clock: ManualClock,
  ) {}

  /** A promise only when the screen is parsed or looked at now. */
  write(data: string): Promise<void> | undefined {
    this.unparsed.push(data);
    this.unparsedLength += data.length;
    this.wd.observe({ kind: 'output' });
    this.pending = true;
    this.lastOutput = this.clock.now();
    return this.lookIfDue(this.clock.now()) ?? (this.unparsedLength >= MAX_UNPARSED ? this.parse() : undefined);
  }

  async resize(cols: number, rows: number): Promise<void> {
    await this.parse();
    this.screen.resize(cols, rows);
    this.pending = true;
    await this.flush();
  }

  /** Before time moves to `t`: shows what is on screen if a look or a deadline comes first (a promise then). */
  flushBefore(t: number): Promise<void> | undefined {
    if (!this.pending) return undefined;
    const due = this.wd.nextDeadline();
    return due !== undefined && due <= t ? this.flush() : this.lookIfDue(t, due);
  }

  /** Parses what waits and shows the screen: a promise only while xterm still parses. */
  flush(): Promise<void> | undefined {
    if (!this.pending) return undefined;
    const parsing = this.parse();
    return parsing ? parsing.then(() => this.show()) : this.show();
  }

  private show(): undefined {
    this.pending = false;
    this.lastSeen = this.clock.now();
    this.scrollAtLook = this.screen.scrolledLines;
    this.scrolled = false;
    this.looks++;
    this.wd.observe({ kind: 'screen', snapshot: this.screen.snapshot() });
    return undefined;
  }

  /** Looks if a look is due by `t` (a promise then); what waits is parsed first when only a scroll would put the look off. */
  private lookIfDue(t: number, deadline?: number): Promise<void> | undefined {
    if (t < this.lastSeen + SCREEN_SAMPLE_MS) return undefined;
    if (!this.scrolled) {
      const parsing = this.parse();
      return parsing ? parsing.then(() => this.lookIfParsedDue(t)) : this.lookIfParsedDue(t);
    }
    deadline ??= this.wd.nextDeadline();
    return t >= nextLook({ lastLook: this.lastSeen, lastOutput: this.lastOutput, scrolled: true, deadline }) ? this.flush() : undefined;
  }

  private lookIfParsedDue(t: number): Promise<void> | undefined {
    this.scrolled = this.screen.scrolledSince(this.scrollAtLook);
    const due = nextLook({ lastLook: this.lastSeen, lastOutput: this.lastOutput, scrolled: this.scrolled, deadline: this.wd.nextDeadline() });
    return t >= due ? this.flush() : undefined;
  }

  /** Hands what waits to xterm: a promise only while xterm still parses it. */
  private parse(): Promise<void> | undefined {
    if (this.unparsed.length === 0) return undefined;
    const data = this.unparsed.length === 1 ? this.unparsed[0]! : this.unparsed.join('');
    this.unparsed = [];
    this.unparsedLength = 0;
    // The last write ended inside an escape sequence (an event boundary falls anywhere): its end goes
    // alone, up to the first line end, so the rest may skip its scrolled lines. xterm's parse does not
    // depend on where writes begin and end; a whole 4 MB parse was a tenth of a drill of `ls -laR`.
    if (data.length >= COLLAPSE_MIN && !this.screen.canCollapse) {
      const head = data.indexOf('\r\n') + 2;
      if (head > 1) {
        const rest = data.slice(head);
        const first = this.screen.tryWrite(data.slice(0, head));
        return first ? first.then(() => this.screen.tryWrite(rest)) : this.screen.tryWrite(rest);
      }
    }
    return this.screen.tryWrite(data);
  }
}

/** Output held back from xterm before it is parsed anyway, in UTF-16 units (memory stays bounded on a long burst). */
const MAX_UNPARSED = 4_000_000;

/**
 * Fires every watchdog deadline up to and including `t`, then sets the
 * clock to `t`. Ticks only at deadlines, as the live DeadlineTimer does:
 * between them tick() has nothing due (nextDeadline's contract), and the
 * event at `t` is observed next anyway.
 */
function advance(wd: Watchdog, clock: ManualClock, t: number): void {
  for (let d = wd.nextDeadline(); d !== undefined && d <= t; d = wd.nextDeadline()) {
    clock.set(d);
    wd.tick();
  }
  if (t > clock.now()) clock.set(t);
}

/** Every event but output ('o', which the feed takes). */
async function apply(ev: CastEvent, wd: Watchdog, feed: SampledFeed, agent: DrillAgent | undefined): Promise<void> {
  switch (ev.code) {
    case 'r': {
      const m = /^(\d+)x(\d+)$/.exec(ev.data);
      if (m) await feed.resize(Number(m[1]), Number(m[2]));
      return;
    }
    case 'x':
      await feed.flush();
      wd.observe({ kind: 'exit', exitCode: Number(ev.data), signal: null });
      return;
    case 'm':
      await feed.flush();
      if (!agent?.marker(ev.data)) applyMarker(ev.data, wd);
      return;
    default:
      // 'i' (keys typed during recording) and unknown codes do not move the watchdog.
      return;
  }
}

function applyMarker(label: string, wd: Watchdog): void {
  const m = parseMarker(label);
  if (m.kind === 'tool') wd.observe({ kind: 'tool', event: m.event });
  else if (m.kind === 'proc') wd.observe({ kind: 'proc', busy: m.busy });
  else if (m.kind === 'exit') wd.observe({ kind: 'exit', exitCode: m.code, signal: null });
  else if (m.kind === 'foreground') wd.observe({ kind: 'foreground', program: m.program });
  else if (m.kind === 'foreground-file') wd.observe({ kind: 'foreground-file', file: m.file });
  else if (m.kind === 'tty-mode') wd.observe({ kind: 'tty-mode', ...m.mode });
  else if (m.kind === 'tty') wd.observe({ kind: 'tty-read', reading: m.reading });
  else if (m.kind === 'agent') wd.observe({ kind: 'agent', signal: m.state });
  else if (m.kind === 'person') wd.observe({ kind: 'person', action: m.action, by: m.by });
}
