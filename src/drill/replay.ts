/**
 * Replays a recording through the same Screen and Watchdog a live job uses,
 * in virtual time: the clock jumps from event to event, stopping at every
 * watchdog deadline on the way, so hours of recording take milliseconds.
 */
import { ManualClock } from '../core/clock.js';
import type { Transition } from '../core/task-state.js';
import { parseMarker } from '../core/tool-events.js';
import { Watchdog } from '../core/watchdog.js';
import { SCREEN_SAMPLE_MS, type Action, type PromptResponder, type WatchdogConfig, type WatchdogRules } from '../core/watchdog-types.js';
import type { Cast, CastEvent } from '../record/asciicast.js';
import { Screen } from '../screen/screen.js';
import type { ProbeProfile } from '../probes/index.js';
import { DrillAgent } from './drill-agent.js';

export interface Replay {
  /** Seconds from the first to the last event (the end marker or exit). */
  readonly duration: number;
  readonly transitions: readonly Transition[];
  readonly actions: readonly Action[];
  readonly bytes: number;
}

/**
 * The recording's environment (registry settings recorded with the job)
 * stands in for the job's, so a drill judges sources as the live run did.
 */
export async function replayCast(
  cast: Cast,
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
  try {
    wd.start();
    for (const ev of cast.events) {
      const t = Math.round(ev.t * 1_000);
      await feed.flushBefore(t);
      advance(wd, clock, t);
      bytes += await apply(ev, wd, feed, agent);
      if (wd.state === 'done') break;
    }
    await feed.flush();
    const end = cast.events.at(-1)?.t ?? 0;
    advance(wd, clock, Math.round(end * 1_000));
    const actions = [...wd.actions, ...(agent?.actions ?? [])].sort((a, b) => a.t - b.t);
    return { duration: end, transitions: wd.history, actions, bytes };
  } finally {
    screen.dispose();
  }
}

/**
 * Shows the watchdog the screen at most every SCREEN_SAMPLE_MS of recording
 * time, and always before a pause, a marker or a deadline, exactly as the
 * live ScreenFeed does: reading the screen costs more than parsing output.
 * Output is handed to xterm only when the screen is about to be looked at
 * (or a few MB have piled up): nobody reads it in between, and one write per
 * recorded chunk cost a promise and a parser wake-up each.
 */
class SampledFeed {
  private lastSeen = -Infinity;
  private pending = false;
  private unparsed: string[] = [];
  private unparsedLength = 0;

  constructor(
    private readonly screen: Screen,
    private readonly wd: Watchdog,
    private readonly clock: ManualClock,
  ) {}

  async write(data: string): Promise<void> {
    this.unparsed.push(data);
    this.unparsedLength += data.length;
    this.wd.observe({ kind: 'output' });
    this.pending = true;
    if (this.clock.now() - this.lastSeen >= SCREEN_SAMPLE_MS) await this.flush();
    else if (this.unparsedLength >= MAX_UNPARSED) await this.parse();
  }

  async resize(cols: number, rows: number): Promise<void> {
    await this.parse();
    this.screen.resize(cols, rows);
    this.pending = true;
    await this.flush();
  }

  /** Before time moves to `t`: show what is on screen if that is a pause or a deadline away. */
  async flushBefore(t: number): Promise<void> {
    if (!this.pending) return;
    const due = this.wd.nextDeadline();
    if (t - this.lastSeen >= SCREEN_SAMPLE_MS || (due !== undefined && due <= t)) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending) return;
    await this.parse();
    this.pending = false;
    this.lastSeen = this.clock.now();
    this.wd.observe({ kind: 'screen', snapshot: this.screen.snapshot() });
  }

  private async parse(): Promise<void> {
    if (this.unparsed.length === 0) return;
    const data = this.unparsed.length === 1 ? this.unparsed[0]! : this.unparsed.join('');
    this.unparsed = [];
    this.unparsedLength = 0;
    await this.screen.write(data);
  }
}

/** Output held back from xterm before it is parsed anyway, in UTF-16 units (memory stays bounded on a long burst). */
const MAX_UNPARSED = 4_000_000;

/** Fires every watchdog deadline up to and including `t`, then sets the clock to `t`. */
function advance(wd: Watchdog, clock: ManualClock, t: number): void {
  for (let d = wd.nextDeadline(); d !== undefined && d <= t; d = wd.nextDeadline()) {
    clock.set(d);
    wd.tick();
  }
  if (t > clock.now()) clock.set(t);
  wd.tick();
}

async function apply(ev: CastEvent, wd: Watchdog, feed: SampledFeed, agent: DrillAgent | undefined): Promise<number> {
  switch (ev.code) {
    case 'o':
      await feed.write(ev.data);
      return ev.data.length;
    case 'r': {
      const m = /^(\d+)x(\d+)$/.exec(ev.data);
      if (m) await feed.resize(Number(m[1]), Number(m[2]));
      return 0;
    }
    case 'x':
      await feed.flush();
      wd.observe({ kind: 'exit', exitCode: Number(ev.data), signal: null });
      return 0;
    case 'm':
      await feed.flush();
      if (!agent?.marker(ev.data)) applyMarker(ev.data, wd);
      return 0;
    default:
      // 'i' (keys typed during recording) and unknown codes do not move the watchdog.
      return 0;
  }
}

function applyMarker(label: string, wd: Watchdog): void {
  const m = parseMarker(label);
  if (m.kind === 'tool') wd.observe({ kind: 'tool', event: m.event });
  else if (m.kind === 'proc') wd.observe({ kind: 'proc', busy: m.busy });
  else if (m.kind === 'exit') wd.observe({ kind: 'exit', exitCode: m.code, signal: null });
  else if (m.kind === 'foreground') wd.observe({ kind: 'foreground', program: m.program });
  else if (m.kind === 'tty') wd.observe({ kind: 'tty-read', reading: m.reading });
  else if (m.kind === 'agent') wd.observe({ kind: 'agent', signal: m.state });
  else if (m.kind === 'person') wd.observe({ kind: 'person', action: m.action, by: m.by });
}
