/**
 * A program waiting for a person, from what the process and the terminal
 * say rather than from a rule's words: the foreground process asleep in a
 * read of the terminal (or an editor or pager in the foreground), the
 * terminal's mode, and what the wait is about (its class).
 */
import type { PromptClass } from './task-state.js';

/** The terminal's line discipline as the foreground program left it (tcgetattr). */
export interface TtyMode {
  /** ICANON: the kernel edits a line and hands it over on Enter. */
  readonly canonical: boolean;
  /** ECHO: what is typed is shown. Off at a line prompt: a secret is asked for. */
  readonly echo: boolean;
}

export type WaitKind = 'line' | 'raw' | 'editor' | 'pager';

/**
 * A line read needs only to outlast its prompt being printed; a full-screen
 * program may redraw a moment after its last key, and live displays
 * (`top`, `watch`) redraw every few seconds, so it must stand still longer.
 */
export const LINE_WAIT_MS = 2_000;
export const FULL_SCREEN_WAIT_MS = 5_000;

const EDITORS = new Set(['vi', 'vim', 'nvim', 'view', 'vimdiff', 'nano', 'pico', 'rnano', 'emacs', 'micro', 'joe', 'mg', 'hx', 'helix', 'kak', 'ne', 'jed', 'mcedit']);
const PAGERS = new Set(['less', 'more', 'most', 'man', 'pg']);

/** `vim.basic` → vim, `emacs-nox` → emacs: Debian's alternatives name the binary after its flavour. */
function baseName(comm: string): string {
  return comm.toLowerCase().replace(/[.-](?:basic|tiny|gtk3?|nox|athena|lucid|x11)$/, '');
}

/** The last name asked about: the foreground program is asked about at every deadline, and changes seldom. */
let lastComm: string | null = null;
let lastKind: 'editor' | 'pager' | undefined;

/** An editor or a pager, by the foreground process's name (its /proc comm). */
export function programKind(comm: string | null): 'editor' | 'pager' | undefined {
  if (!comm) return undefined;
  if (comm === lastComm) return lastKind;
  const b = baseName(comm);
  lastKind = EDITORS.has(b) ? 'editor' : PAGERS.has(b) ? 'pager' : undefined;
  lastComm = comm;
  return lastKind;
}

/**
 * How the foreground program waits, if it does: an editor or pager waits in
 * its own loop (vim sleeps in select, not read), any other program must sit
 * in a terminal read; raw mode is a full-screen or key-at-a-time program.
 */
export function waitKind(foreground: string | null, readingTty: boolean, mode: TtyMode | undefined): WaitKind | undefined {
  const program = programKind(foreground);
  if (program) return program;
  if (!readingTty) return undefined;
  return mode && !mode.canonical ? 'raw' : 'line';
}

export function waitMs(kind: WaitKind): number {
  return kind === 'line' ? LINE_WAIT_MS : FULL_SCREEN_WAIT_MS;
}

/** ssh's question on a host it has not seen: answering it trusts a key nobody checked. */
const HOST_KEY = /continue connecting \(yes\/no|authenticity of host .* can't be established/is;
const SECRET_WORDS = /\b(?:password|passphrase|passcode|PIN)\b[^\n]*:\s*$/i;

/**
 * Classes no rule's class may soften: a host key is `trust`, a password is
 * `secret` (by its words, or echo off at a line read). undefined when the
 * text and the mode say neither.
 */
export function guardedClass(text: string, readingTty: boolean, mode: TtyMode | undefined): 'trust' | 'secret' | undefined {
  if (HOST_KEY.test(text)) return 'trust';
  if (readingTty && mode && mode.canonical && !mode.echo) return 'secret';
  return SECRET_WORDS.test(text.trimEnd()) ? 'secret' : undefined;
}

/** What a wait seen by the process and the terminal asks, in a class. */
function waitClass(kind: WaitKind, text: string, mode: TtyMode | undefined): PromptClass {
  if (kind === 'editor' || kind === 'pager') return kind;
  return guardedClass(text, true, mode) ?? 'question';
}

/** Classes that are never answered automatically, whatever a rule or policy says. */
export const NEVER_ANSWERED: ReadonlySet<PromptClass> = new Set<PromptClass>(['trust', 'secret', 'editor', 'pager']);

/**
 * The block a wait makes: its class, its detail, and the prompt a page
 * shows. An editor's screen is the file itself: its page names the program
 * and the file instead.
 */
export function waitVerdict(kind: WaitKind, foreground: string | null, file: string | undefined, screenText: string, mode: TtyMode | undefined) {
  const full = kind === 'editor' || kind === 'pager';
  return {
    class: waitClass(kind, screenText, mode),
    detail: `waiting-input:${kind}${full ? `:${foreground}` : ''}`,
    prompt: full ? `${foreground ?? kind}${file ? ` ${file}` : ''}` : screenText,
  };
}
