/**
 * The normalised stream an agent adapter makes of a transcript (Claude Code,
 * Codex, Gemini) or of the generic event file. Probes read only this.
 * `id` is stable across re-reads of the same transcript (evidence cites it).
 */
export type AgentEvent =
  | { readonly kind: 'turn-start'; readonly id: string; readonly t: number; readonly text: string }
  | {
      readonly kind: 'tool-call';
      readonly id: string;
      readonly t: number;
      readonly tool: string;
      readonly args: Readonly<Record<string, unknown>>;
      /** Tool + args with keys sorted and volatile values normalised: equal calls, equal strings. */
      readonly canonical: string;
    }
  | {
      readonly kind: 'tool-result';
      readonly id: string;
      readonly t: number;
      readonly callId: string;
      readonly tool: string;
      readonly ok: boolean;
      /** Hash of the output with volatile parts (times, ids, counters) removed. */
      readonly fingerprint: string;
      /** First line or ~100 chars of an error, for "same failure again". */
      readonly errorHead: string | null;
    }
  | { readonly kind: 'assistant-text'; readonly id: string; readonly t: number; readonly text: string }
  | { readonly kind: 'usage'; readonly id: string; readonly t: number; readonly inputTokens: number; readonly outputTokens: number }
  | { readonly kind: 'turn-end'; readonly id: string; readonly t: number; readonly finalText: string };

export type AgentKind = 'claude' | 'codex' | 'gemini' | 'generic';

/** What a tool does, for progress and verification probes (from rules/probes.yaml). */
export type ToolRole = 'write' | 'read' | 'test' | 'list' | 'poll' | 'shell' | 'other';

/** A stored transcript read whole (src/adapters/stored.ts), as `nightshift judge` re-judges it. */
export interface StoredTranscript {
  readonly path: string;
  /** The format it was read as (adapters' TranscriptFormat). */
  readonly format: string;
  readonly agent: AgentKind;
  readonly events: readonly AgentEvent[];
  /** Lines the parser could not read (`FILE:LINE: why`): the rest was judged, as a live job reads on past them. */
  readonly problems: readonly string[];
}
