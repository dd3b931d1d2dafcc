import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readCast } from '../record/cast-reader.js';
import { streamCast } from '../record/cast-stream.js';
import { tempDirs } from '../../test/helpers/temp-dirs.js';
import { SCROLL_LOOK_MS } from '../core/screen-looks.js';
import { DEFAULT_WATCHDOG } from '../core/watchdog-types.js';
import type { Cast, CastEvent } from '../record/asciicast.js';
import { shippedRules } from '../../test/helpers/rules.js';
import { replayCast } from './replay.js';

const STEP = 0.01;
const SECONDS = 60;

/** 60 s of output 10 ms apart, then a [y/N] question after a one-second pause. */
function castOf(chunk: (i: number) => string): Cast {
  const events: CastEvent[] = [];
  const n = SECONDS / STEP;
  for (let i = 0; i < n; i++) events.push({ t: (i + 1) * STEP, code: 'o', data: chunk(i) });
  events.push({ t: SECONDS + 1, code: 'o', data: '\r\nOverwrite the existing file? [y/N] ' });
  events.push({ t: SECONDS + 600, code: 'm', data: 'exit:0' });
  return { header: { version: 2, width: 80, height: 24 }, events };
}

const lines = (i: number) => Array.from({ length: 5 }, (_, k) => `build step ${i * 5 + k} compiled module ${k}\r\n`).join('');
/** A line every 10 ms: ten a sample, far less than the 24-row page. */
const logLine = (i: number) => `request ${i} served in ${i % 97} ms\r\n`;
const bar = (i: number) => `\r[${'#'.repeat(i % 50).padEnd(50, '.')}] ${i}`;

const blockedAt = (r: Awaited<ReturnType<typeof replayCast>>) => r.transitions.find((t) => t.to === 'blocked');

describe('replay looks at the screen as a live job does', () => {
  it('looks at output that scrolls about once per SCROLL_LOOK_MS, a page at a time or a line, and still sees the question at its pause', async () => {
    const scroll = await replayCast(castOf(lines), shippedRules as never, DEFAULT_WATCHDOG);
    const slowScroll = await replayCast(castOf(logLine), shippedRules as never, DEFAULT_WATCHDOG);
    const inPlace = await replayCast(castOf(bar), shippedRules as never, DEFAULT_WATCHDOG);
    // 50 lines per 100 ms scroll the 24-row page away between two looks; 10 lines scroll it too, a part of it.
    for (const r of [scroll, slowScroll]) expect(r.looks).toBeLessThanOrEqual((SECONDS * 1_000) / SCROLL_LOOK_MS + 5);
    // A line redrawn in place scrolls nothing: a look every 100 ms, as ever.
    expect(inPlace.looks).toBeGreaterThanOrEqual(SECONDS * 10 - 5);
    for (const r of [scroll, slowScroll, inPlace]) expect(blockedAt(r)).toMatchObject({ reason: { code: 'prompt' } });
    expect(blockedAt(scroll)!.t).toBe(blockedAt(inPlace)!.t);
    expect(blockedAt(slowScroll)!.t).toBe(blockedAt(inPlace)!.t);
  });
});

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const tmp = tempDirs('nightshift-replay-');

describe('replay of a cast streamed from its reader thread', () => {
  it('gives every shipped scenario the transitions, actions, looks and duration the whole cast gives', async () => {
    const files = readdirSync(SCENARIOS).filter((f) => f.endsWith('.cast'));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const file = join(SCENARIOS, f);
      const whole = await replayCast(await readCast(file), shippedRules as never, DEFAULT_WATCHDOG);
      const streamed = await replayCast(await streamCast(file), shippedRules as never, DEFAULT_WATCHDOG);
      expect(streamed, f).toEqual(whole);
    }
  });

  it('a recording that goes on past the end of the job: the duration is still that of its last event, batches later', async () => {
    const lines = ['{"version": 2, "width": 80, "height": 24}', '[0.5, "o", "hello\\r\\n"]', '[1.0, "m", "exit:0"]'];
    const chunk = JSON.stringify(`${'y'.repeat(1000)}\r\n`);
    for (let i = 0; i < 4096; i++) lines.push(`[${(2 + i / 100).toFixed(6)}, "o", ${chunk}]`);
    const file = join(tmp(), 'after-exit.cast');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const whole = await replayCast(await readCast(file), shippedRules as never, DEFAULT_WATCHDOG);
    const streamed = await replayCast(await streamCast(file), shippedRules as never, DEFAULT_WATCHDOG);
    expect(whole.duration).toBeCloseTo(2 + 4095 / 100, 6);
    expect(streamed).toEqual(whole);
  });
});
