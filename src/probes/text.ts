/**
 * Sentences of an agent's reply, for the announce and claim probes.
 * An ASCII dot ends a sentence only before whitespace or the end of the
 * text, so `v0.3.1`, `config.ts` and `e.g.x` stay inside their sentence;
 * Chinese full stops, ! ? ; … and line breaks always end one.
 */

const END = /[。！？!?；;\n…]+|\.(?=\s|$)/;
/** Markdown around a sentence: list bullets, quotes, headings, emphasis. */
const LEAD = /^[\s>*_#•\-`]+/;
/** Bold markers inside a sentence ("**Next**, I will…"). */
const BOLD = /\*\*|__/g;
const TRAIL = /[\s*_`]+$/;

export function sentencesOf(text: string): string[] {
  return text
    .split(END)
    .map((s) => s.replace(BOLD, '').replace(LEAD, '').replace(TRAIL, ''))
    .filter((s) => s !== '');
}

export function lastSentence(text: string): string {
  const all = sentencesOf(text);
  return all[all.length - 1] ?? '';
}

/** The reply's last visible character, ignoring trailing whitespace and emphasis. */
export function lastChar(text: string): string {
  const t = text.replace(TRAIL, '');
  return t[t.length - 1] ?? '';
}

export const anyMatch = (patterns: readonly RegExp[], text: string): RegExp | undefined => patterns.find((p) => p.test(text));
