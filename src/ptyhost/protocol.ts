/**
 * The PTY host's wire format on its unix socket. Every frame is
 *
 *   [u32 BE length of what follows][u8 type][payload]
 *
 * OUTPUT frames carry a job's bytes untouched (no JSON, no base64: an output
 * flood must cost little more than a copy); every other frame is a JSON
 * control message, optionally followed by raw bytes (the `write` request):
 *
 *   JSON frames:   payload = [u32 BE json length][json utf8][tail bytes]
 *   OUTPUT frames: payload = [f64 BE offset][u16 BE id length][id utf8][bytes]
 *
 * `offset` is where the chunk's first byte sits in everything the job ever
 * printed, so a client can resume with `attach {since}` without gaps or repeats.
 */

import { join } from 'node:path';
import type { PtySpawnOptions } from '../pty/host.js';
import { ByteBuffer } from '../util/byte-buffer.js';

/** In the daemon's 0700 run directory, beside its control socket. */
export function ptyhostSocket(stateDir: string): string {
  return join(stateDir, 'run', 'ptyhost.sock');
}

/**
 * Host and client must agree exactly. Bump it whenever the frames, the
 * operations or their meaning change; a nightshift upgrade that keeps it can
 * go on using a running host (the host rarely needs an upgrade).
 */
export const PTYHOST_VERSION = 'nightshift-ptyhost/2';

export const FRAME = {
  /** host → client, first frame on every connection: {version, pid}. */
  hello: 1,
  /** client → host: {rid, op, args} plus raw bytes for `write`. */
  request: 2,
  /** host → client: {rid, ok: true, result} or {rid, ok: false, error}. */
  reply: 3,
  /** host → client: a job's output, binary layout above. */
  output: 4,
  /** host → client: {id: jobId, exit} for an attached job. */
  exit: 5,
  /** host → client: {id: jobId, message, code} the job's recording could not be written (a full disk); the job goes on. */
  problem: 6,
} as const;

export interface RecordingProblem {
  message: string;
  /** The errno code, e.g. ENOSPC. */
  code: string | null;
}

export type FrameType = (typeof FRAME)[keyof typeof FRAME];

/** A client's write can be a large paste; anything bigger is a broken peer. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export interface Hello {
  version: string;
  pid: number;
}

export interface JobExit {
  /** node-pty reports 0 when the child died of a signal. */
  exitCode: number;
  /** Signal name such as 'SIGTERM', or null for a normal exit. */
  signal: string | null;
  /** ISO time the host saw the exit. */
  at: string;
}

export interface JobInfo {
  id: string;
  pid: number;
  command: string;
  startedAt: string;
  /** Bytes the job has printed in all (the offset after its last byte). */
  outputBytes: number;
  /** null while running. */
  exit: JobExit | null;
}

/** What `nightshift run` gives a PTY ($TERM comes from env.TERM), plus the job's id and recording. */
export interface SpawnArgs extends Omit<PtySpawnOptions, 'name'> {
  id: string;
  /** asciicast v2 file the host appends the output to (docs/README-ptyhost.md). */
  recording?: string;
  /** More header fields for the recording (title, env); width, height and timestamp are the host's. */
  header?: Record<string, unknown>;
  /** Past this many bytes the recording gets a `recording-cap:` marker and the tail. */
  recordingCap?: number;
  /**
   * Attach this connection in the same step as the spawn: output frames from
   * the job's first byte, and the result is an AttachResult.
   */
  attach?: boolean;
  /**
   * The client ends the recording itself, with a `note {stop}` after the
   * exit (its last markers, then its `exit:`): while a client is attached at
   * the exit the host waits for it (at most 10 s) instead of writing its own.
   */
  clientCloses?: boolean;
}

/** What attach replays before going live: the buffer from `from` (≥ since) to `to`. */
export interface AttachResult {
  from: number;
  to: number;
  pid: number;
  exit: JobExit | null;
}

export interface Requests {
  spawn: { args: SpawnArgs; result: { pid: number } & Partial<AttachResult> };
  write: { args: { id: string }; result: null };
  resize: { args: { id: string; cols: number; rows: number }; result: null };
  kill: { args: { id: string; signal: string }; result: null };
  list: { args: Record<string, never>; result: JobInfo[] };
  attach: { args: { id: string; since?: number }; result: AttachResult };
  detach: { args: { id: string }; result: null };
  /**
   * An event of the client's own in the job's recording, in order with its
   * output: 'i' input, 'm' a marker; `stop` ends the recording after it (a
   * full disk elsewhere).
   */
  note: { args: NoteArgs; result: null };
}

export interface NoteArgs {
  id: string;
  code: 'i' | 'm';
  data: string;
  stop?: boolean;
}

export type Op = keyof Requests;

export interface ErrorBody {
  message: string;
  /** 'input': the request was wrong (unknown job, bad size); 'internal': the host failed. */
  kind: 'input' | 'internal';
}

export interface Frame {
  type: number;
  payload: Buffer;
}

export function jsonFrame(type: FrameType, body: unknown, tail?: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(body));
  const tailLen = tail?.length ?? 0;
  const buf = Buffer.allocUnsafe(9 + json.length + tailLen);
  buf.writeUInt32BE(5 + json.length + tailLen, 0);
  buf.writeUInt8(type, 4);
  buf.writeUInt32BE(json.length, 5);
  json.copy(buf, 9);
  if (tail) tail.copy(buf, 9 + json.length);
  return buf;
}

/** The header only: the caller writes the data after it, so the bytes are never copied into a new buffer. */
export function outputHeader(jobId: string, offset: number, dataLength: number): Buffer {
  const id = Buffer.from(jobId);
  const buf = Buffer.allocUnsafe(15 + id.length);
  buf.writeUInt32BE(11 + id.length + dataLength, 0);
  buf.writeUInt8(FRAME.output, 4);
  buf.writeDoubleBE(offset, 5);
  buf.writeUInt16BE(id.length, 13);
  id.copy(buf, 15);
  return buf;
}

export function parseJson(payload: Buffer): { body: unknown; tail: Buffer } {
  if (payload.length < 4) throw new Error(`control frame of ${payload.length} bytes is too short for its length field`);
  const len = payload.readUInt32BE(0);
  if (4 + len > payload.length) throw new Error(`control frame says its JSON is ${len} bytes but only ${payload.length - 4} follow`);
  return { body: JSON.parse(payload.toString('utf8', 4, 4 + len)), tail: payload.subarray(4 + len) };
}

export function parseOutput(payload: Buffer): { jobId: string; offset: number; data: Buffer } {
  const idLen = payload.readUInt16BE(8);
  return {
    offset: payload.readDoubleBE(0),
    jobId: payload.toString('utf8', 10, 10 + idLen),
    data: payload.subarray(10 + idLen),
  };
}

/**
 * Cuts a byte stream into frames. A frame inside one chunk is a view of it;
 * the bytes of a frame that is not whole yet are copied, into one of two
 * buffers used again and again (ByteBuffer), so the caller may fill the
 * chunk's memory again after push (a socket reading into one buffer).
 * Frames are good until the next push: a caller that keeps one copies it.
 */
export class FrameDecoder {
  /** The unfinished frame, carried into the next push. */
  private carry = new ByteBuffer();
  /** Where the frame the last push finished in `carry` stays until the next push. */
  private done = new ByteBuffer();

  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {}

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    this.done.clear();
    let pos = 0;
    if (this.carry.length > 0) {
      pos = this.fill(chunk);
      const whole = this.carry.view();
      if (whole.length < 4 || whole.length < 4 + whole.readUInt32BE(0)) return frames;
      frames.push({ type: whole[4]!, payload: whole.subarray(5) });
      [this.carry, this.done] = [this.done, this.carry];
    }
    while (chunk.length - pos >= 4) {
      const len = this.checked(chunk.readUInt32BE(pos));
      if (chunk.length - pos < 4 + len) break;
      frames.push({ type: chunk[pos + 4]!, payload: chunk.subarray(pos + 5, pos + 4 + len) });
      pos += 4 + len;
    }
    if (pos < chunk.length) this.carry.append(chunk.subarray(pos));
    return frames;
  }

  /** Copies from `chunk` into the carried frame up to its end; returns how much of `chunk` it took. */
  private fill(chunk: Buffer): number {
    let pos = 0;
    if (this.carry.length < 4) {
      pos = Math.min(4 - this.carry.length, chunk.length);
      this.carry.append(chunk.subarray(0, pos));
      if (this.carry.length < 4) return pos;
    }
    const total = 4 + this.checked(this.carry.view().readUInt32BE(0));
    const take = Math.min(total - this.carry.length, chunk.length - pos);
    this.carry.append(chunk.subarray(pos, pos + take));
    return pos + take;
  }

  private checked(len: number): number {
    if (len < 1 || len > this.maxFrameBytes) {
      throw new Error(`frame length ${len} is outside 1..${this.maxFrameBytes}; the peer does not speak ${PTYHOST_VERSION}`);
    }
    return len;
  }
}
