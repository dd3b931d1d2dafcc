/**
 * Replays a recording through the same Screen and Watchdog a live job uses,
 * in virtual time: the clock jumps from event to event, stopping at every
 * watchdog deadline on the way, so hours of recording take milliseconds.
 */
import { ManualClock } from '../core/clock.js';
import type { Transition } from '../core/task-state.js';
import { parseMarker } from '../core/tool-events.js';
import { Watchdog } from '../core/watchdog.js';
import type { Action, PromptResponder, WatchdogConfig, WatchdogRules } from '../core/watchdog-types.js';
import type { Cast, CastEvent } from '../record/asciicast.js';
import { Screen } from '../screen/screen.js';

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
export async function replayCast(cast: Cast, rules: WatchdogRules, config: WatchdogConfig, responder?: PromptResponder): Promise<Replay> {
  const clock = new ManualClock(0);
  const env = cast.header.env ?? {};
  const wd = new Watchdog(rules, clock, config, { ...(responder ? { responder } : {}), env });
  const screen = new Screen(cast.header.width, cast.header.height);
  let bytes = 0;
  try {
    wd.start();
    const events = cast.events;
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]!;
      const t = Math.round(ev.t * 1_000);
      advance(wd, clock, t);
      // Output bursts within one millisecond are observed once, at their end, as
      // the live ScreenFeed does: reading the screen costs more than parsing it.
      const next = events[i + 1];
      const burst = ev.code === 'o' && next?.code === 'o' && Math.round(next.t * 1_000) === t;
      bytes += burst ? await writeOnly(ev, screen) : await apply(ev, wd, screen);
      if (wd.state === 'done') break;
    }
    const end = cast.events.at(-1)?.t ?? 0;
    advance(wd, clock, Math.round(end * 1_000));
    return { duration: end, transitions: wd.history, actions: wd.actions, bytes };
  } finally {
    screen.dispose();
  }
}

/** Fires every watchdog deadline up to and including `t`, then sets the clock to `t`. */
function advance(wd: Watchdog, clock: ManualClock, t: number): void {
  for (let d = wd.nextDeadline(); d !== undefined && d <= t; d = wd.nextDeadline()) {
    clock.set(d);
    wd.tick();
  }
  if (t > clock.now()) clock.set(t);
  wd.tick();
}

async function writeOnly(ev: CastEvent, screen: Screen): Promise<number> {
  await screen.write(ev.data);
  return ev.data.length;
}

async function apply(ev: CastEvent, wd: Watchdog, screen: Screen): Promise<number> {
  switch (ev.code) {
    case 'o':
      await screen.write(ev.data);
      wd.observe({ kind: 'output' });
      wd.observe({ kind: 'screen', snapshot: screen.snapshot() });
      return ev.data.length;
    case 'r': {
      const m = /^(\d+)x(\d+)$/.exec(ev.data);
      if (m) {
        screen.resize(Number(m[1]), Number(m[2]));
        wd.observe({ kind: 'screen', snapshot: screen.snapshot() });
      }
      return 0;
    }
    case 'x':
      wd.observe({ kind: 'exit', exitCode: Number(ev.data), signal: null });
      return 0;
    case 'm':
      applyMarker(ev.data, wd);
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
}
