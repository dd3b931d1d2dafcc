import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { spawn as ptySpawn, type IPty } from 'node-pty';
import { keepLastWords } from './last-words.js';
import { InputError } from '../util/errors.js';
import { Emitter } from '../util/event.js';
import { keySequence } from '../core/keys.js';
import { OutputFan, type OutputChunk } from './utf8-stream.js';
import type { Disposable, PtyExit, PtyPort, SendTextOptions } from './pty-port.js';

export type { Disposable, PtyExit, PtyPort } from './pty-port.js';

export interface PtySpawnOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** $TERM for the child; xterm-256color unless given. */
  name?: string;
}

/** Programs read keystrokes in batches; text and its Enter too close together get merged or dropped. */
export const DEFAULT_PAUSE_MS = 120;

/** Number to name; the first name wins for aliases (SIGABRT over SIGIOT, SIGIO over SIGPOLL). */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, num] of Object.entries(osConstants.signals)) {
  if (!SIGNAL_NAMES.has(num)) SIGNAL_NAMES.set(num, name);
}

/** What every PTY of this process (PtyHost, ThreadedPty) does alike: listeners, the exit, paced input. */
export abstract class LocalPty implements PtyPort {
  protected readonly output = new OutputFan();
  protected exitInfo: PtyExit | undefined;
  abstract readonly pid: number;
  abstract readonly exited: Promise<PtyExit>;
  abstract write(data: string): void;
  abstract resize(cols: number, rows: number): void;
  abstract kill(signal?: string): void;
  abstract dispose(): void;

  /** True until the child's exit has been reported. */
  get running(): boolean {
    return this.exitInfo === undefined;
  }

  get exit(): PtyExit | undefined {
    return this.exitInfo;
  }

  onData(cb: (data: string) => void): Disposable {
    return this.output.onText(cb);
  }

  onOutput(cb: (chunk: OutputChunk) => void): Disposable {
    return this.output.onOutput(cb);
  }

  sendText(text: string, o: SendTextOptions = {}): Promise<void> {
    return sendTextPaced((d) => this.write(d), text, o);
  }

  sendKeys(names: string[], pauseMs = DEFAULT_PAUSE_MS): Promise<void> {
    return sendKeysPaced((d) => this.write(d), names, pauseMs);
  }
}

/** One child process on its own pseudo-terminal. */
export class PtyHost extends LocalPty {
  private readonly exitEmitter = new Emitter<PtyExit>();
  private disposed = false;
  /**
   * Resolves once the child has exited and its output was delivered (all of
   * it: node-pty's 200 ms give-up is drained first, see last-words.ts).
   */
  readonly exited: Promise<PtyExit>;

  private constructor(
    private readonly pty: IPty,
    private readonly command: string,
  ) {
    super();
    // encoding: null makes node-pty hand over Buffers, whatever its typings say.
    pty.onData((data) => this.output.push(data as unknown as Buffer));
    this.exited = new Promise((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        this.output.end();
        const info: PtyExit = { exitCode, signal: signalName(signal) };
        this.exitInfo = info;
        this.exitEmitter.fire(info);
        resolve(info);
      });
    });
  }

  static spawn(o: PtySpawnOptions): PtyHost {
    checkSize(o.cols, o.rows);
    checkDirectory(o.cwd);
    resolveCommand(o.command, o.cwd, o.env.PATH);
    // node-pty forks before exec, so a failed exec would only show up as exit
    // code 1 and an "execvp(3) failed" line on the screen; resolveCommand
    // catches the usual cause up front.
    const pty = ptySpawn(o.command, o.args, {
      name: o.name ?? 'xterm-256color',
      cols: o.cols,
      rows: o.rows,
      cwd: o.cwd,
      env: o.env,
      // Bytes: text is decoded for whoever asks (OutputFan; invalid bytes become U+FFFD).
      encoding: null,
    });
    keepLastWords(pty);
    return new PtyHost(pty, o.command);
  }

  get pid(): number {
    return this.pty.pid;
  }

  /** Subscribing after the exit still hears about it (on a microtask). */
  onExit(cb: (e: PtyExit) => void): Disposable {
    const info = this.exitInfo;
    if (info !== undefined) {
      queueMicrotask(() => cb(info));
      return { dispose: () => undefined };
    }
    return this.exitEmitter.event(cb);
  }

  /**
   * Writes to a finished or disposed child are dropped silently. node-pty
   * queues writes; a queued write that loses the race with the child's exit
   * fails with EBADF, which node-pty only logs (console.error), never throws.
   */
  write(data: string): void {
    if (!this.writable() || data === '') return;
    this.pty.write(data);
  }

  sendKey(name: string): void {
    this.write(keySequence(name));
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (!this.writable()) return;
    this.pty.resize(cols, rows);
  }

  /**
   * argv[0] of the terminal's foreground process-group leader, as node-pty
   * reads it from /proc. Without job control (`bash -c 'a; b'`) that is the
   * shell, not the command it is running: proctree sees deeper.
   */
  foregroundProcess(): string {
    if (!this.writable()) return this.command;
    try {
      return this.pty.process;
    } catch {
      // The fd can close between our exit check and the ioctl.
      return this.command;
    }
  }

  /** Signals the child only; a reaped pid may belong to someone else by now. */
  kill(signal = 'SIGTERM'): void {
    checkSignal(signal);
    if (this.exitInfo !== undefined) return;
    this.pty.kill(signal);
  }

  /**
   * Stops listening and, if the child still runs, hangs up on it as a closed
   * terminal would (SIGHUP) and closes our end so the event loop can exit.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.output.clear();
    this.exitEmitter.dispose();
    if (this.exitInfo === undefined) {
      this.pty.kill('SIGHUP');
      (this.pty as IPty & { destroy?: () => void }).destroy?.();
    }
  }

  private writable(): boolean {
    return !this.disposed && this.exitInfo === undefined;
  }
}

export function signalName(signal: number | undefined): string | null {
  if (!signal) return null;
  return SIGNAL_NAMES.get(signal) ?? `SIG${signal}`;
}

/** Text, then (with `enter`) a pause and Enter: shared by every PtyPort so all pace input alike. */
export async function sendTextPaced(write: (data: string) => void, text: string, o: SendTextOptions = {}): Promise<void> {
  write(text);
  if (!o.enter) return;
  if (text !== '') await sleep(o.pauseMs ?? DEFAULT_PAUSE_MS);
  write('\r');
}

/** Named keys `pauseMs` apart; every name is checked before the first is sent. */
export async function sendKeysPaced(write: (data: string) => void, names: string[], pauseMs = DEFAULT_PAUSE_MS): Promise<void> {
  const seqs = names.map(keySequence);
  for (let i = 0; i < seqs.length; i++) {
    if (i > 0) await sleep(pauseMs);
    write(seqs[i]!);
  }
}

export function checkSignal(signal: string): void {
  if (!(signal in osConstants.signals)) {
    throw new InputError(`unknown signal ${JSON.stringify(signal)}; expected a name like SIGTERM or SIGKILL`);
  }
}

export function checkSize(cols: number, rows: number): void {
  const ok = (n: number) => Number.isInteger(n) && n > 0;
  if (!ok(cols) || !ok(rows)) {
    throw new InputError(`invalid terminal size ${cols}x${rows}; expected positive whole numbers of columns and rows`);
  }
}

export function checkDirectory(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new InputError(`working directory ${JSON.stringify(cwd)} does not exist`);
  }
  if (!isDir) throw new InputError(`working directory ${JSON.stringify(cwd)} is not a directory`);
}

/**
 * Finds the command the way execvp will in the child: names with a slash are
 * taken relative to cwd, bare names are searched on the child's PATH (execvp
 * falls back to /bin:/usr/bin when PATH is unset).
 */
export function resolveCommand(command: string, cwd: string, pathVar: string | undefined): string {
  if (command === '') throw new InputError('empty command; expected a program name or path');
  if (command.includes('/')) {
    const full = path.resolve(cwd, command);
    if (isExecutableFile(full)) return full;
    throw new InputError(`command not found: ${command} (no executable file at ${full})`);
  }
  for (const dir of (pathVar ?? '/bin:/usr/bin').split(':')) {
    const full = path.resolve(cwd, dir === '' ? '.' : dir, command);
    if (isExecutableFile(full)) return full;
  }
  throw new InputError(`command not found: ${command}`);
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
