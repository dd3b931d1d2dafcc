/**
 * The reader thread of cast-stream.ts: reads and parses a cast file and
 * hands its events on in batches, at most AHEAD batches before the replay
 * has taken them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InputError } from '../util/errors.js';
import { CastParser, readLines } from './cast-reader.js';
import type { CastMessage } from './cast-stream.js';

/** Batches in flight: a reader this far ahead keeps the replay fed; more would only hold memory. */
const AHEAD = 4;

const port = parentPort!;
const path = (workerData as { path: string }).path;
let inFlight = 0;
let wake: (() => void) | undefined;

port.on('message', () => {
  inFlight--;
  wake?.();
  wake = undefined;
});

function post(m: CastMessage): void {
  port.postMessage(m);
}

function handOn(parser: CastParser): Promise<void> | undefined {
  const events = parser.take();
  if (events.length === 0 || parser.header === undefined) return undefined;
  inFlight++;
  post({ kind: 'events', header: parser.header, events });
  return inFlight < AHEAD ? undefined : new Promise((resolve) => (wake = resolve));
}

async function main(): Promise<void> {
  const parser = new CastParser(path);
  try {
    await readLines(path, parser, () => handOn(parser));
    const cast = parser.finish();
    post({ kind: 'end', header: cast.header, events: cast.events });
  } catch (e) {
    const input = e instanceof InputError;
    post({ kind: 'error', input, message: (e as Error).message, file: input ? e.file : undefined, line: input ? e.line : undefined });
  }
}

void main();
