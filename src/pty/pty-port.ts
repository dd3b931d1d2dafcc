/**
 * What the supervisor needs of a job's terminal, whoever holds the PTY: the
 * daemon itself (PtyHost, host.ts) or the PTY host process (HostedPty,
 * ../ptyhost/hosted-pty.ts). Kept to the members the supervisor calls, so a
 * second implementation cannot drift on what matters.
 */
import type { OutputChunk } from './utf8-stream.js';

export interface PtyExit {
  /** node-pty reports 0 here when the child died of a signal. */
  exitCode: number;
  /** Signal name such as 'SIGTERM', or null for a normal exit. */
  signal: string | null;
  /** ISO time the exit was seen, when another process saw it (the PTY host, while no daemon watched). */
  at?: string;
  /** No exit status: whoever held the terminal died, and the child with it. Why. */
  lost?: string;
}

export interface Disposable {
  dispose(): void;
}

export interface SendTextOptions {
  enter?: boolean;
  pauseMs?: number;
}

export interface PtyPort {
  readonly pid: number;
  /** True until the child's exit has been reported. */
  readonly running: boolean;
  readonly exit: PtyExit | undefined;
  /** Resolves once the child has exited and its output was delivered. */
  readonly exited: Promise<PtyExit>;
  /** The output decoded (UTF-8); decoding happens only while someone listens here. */
  onData(cb: (data: string) => void): Disposable;
  /**
   * The output as it came, each chunk's text decoded when first asked for
   * (once, shared with onData). Its bytes are good only during the call: a
   * reader that keeps them copies. The end may add a chunk of no bytes whose
   * text is a character the end cut off (U+FFFD).
   */
  onOutput(cb: (chunk: OutputChunk) => void): Disposable;
  /** Dropped silently once the child has exited. */
  write(data: string): void;
  sendText(text: string, o?: SendTextOptions): Promise<void>;
  /** All names are checked before anything is sent, so a typo sends nothing. */
  sendKeys(names: string[], pauseMs?: number): Promise<void>;
  resize(cols: number, rows: number): void;
  /** Never signals after the exit: a reaped pid may belong to someone else by then. */
  kill(signal?: string): void;
  /** Holds the child's output (its writes block) until resume(): for a reader whose work falls behind. Optional: a port whose reads already wait for the reader has none. */
  pause?(): void;
  resume?(): void;
    /** Stops listening. What becomes of a child still running is the implementation's to say. */
  dispose(): void;
}
