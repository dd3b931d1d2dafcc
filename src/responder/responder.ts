/**
 * The layered responder: for a settled prompt, decide to answer or escalate.
 *   1 classify  the rule's class, refined by the prompt's content
 *   2 risk      any risk pattern in the prompt's context makes it destructive
 *   3 policy    only an allow-listed dependency install from an allowed registry
 *   4 guard     anti-spoofing: cursor at the prompt, the rule's own program in the foreground, first time asked
 *   5 act       the answer keys pick a plain "yes", never a wider permission
 * Any doubt ends in escalate. Pure: no I/O, no clock.
 */
import { cursorAllows, NEAR_ROWS, tailWindow, type PromptMatch, type RiskPattern } from '../core/prompt-match.js';
import { lastNonBlankRow } from '../core/screen-snapshot.js';
import type { PromptClass } from '../core/task-state.js';
import type { PromptResponder, ResponderDecision, ResponderInput } from '../core/watchdog-types.js';
import { commandFromPrompt, packagesFromPrompt, parseInstallCommand, type PackageRef } from './packages.js';
import { checkPackage, jobRegistry, type Policy } from './policy.js';
import { scanRisks, type RiskHit } from './risk.js';

export type { ResponderInput };

export type Layer = 'classify' | 'risk' | 'policy' | 'guard' | 'act';

/** The core's decision shape, narrowed: which layer, what was read, which risks hit. */
export interface Decision extends ResponderDecision {
  readonly layer: Layer;
  readonly packages: readonly PackageRef[];
  readonly risks: readonly RiskHit[];
}

interface Classified {
  class: PromptClass;
  packages: PackageRef[];
  unparsed: string[];
  command: string | null;
  registry: string | null;
  context: string;
}

/** How far above the bottom the risk scan and content reading look, at the least. */
export const RISK_CONTEXT_ROWS = 10;

/** Classes whose meaning content may narrow to a dependency install; riskier ones stay. */
const REFINABLE: readonly PromptClass[] = ['permission', 'confirm', 'unknown'];

export function classify(input: ResponderInput): Classified {
  const rule = input.match.rule;
  const last = lastNonBlankRow(input.screen.rows);
  // At least RISK_CONTEXT_ROWS: a one-line `[Y/n]` rule must still see the `curl … | sh` above it.
  const context = tailWindow(input.screen.rows, last, Math.max(rule.lines, RISK_CONTEXT_ROWS)).text;
  const out: Classified = { class: rule.class, packages: [], unparsed: [], command: null, registry: null, context };
  // Packages come from the matched prompt itself, never from the wider context above it.
  if (rule.extract?.packages) Object.assign(out, packagesFromPrompt(rule.extract.packages, input.match.text));
  if (rule.extract && rule.extract.command.length) {
    out.command = commandFromPrompt(rule.extract, context);
    const install = out.command ? parseInstallCommand(out.command) : null;
    if (install && REFINABLE.includes(rule.class)) {
      out.class = 'dependency';
      out.packages = [...install.packages];
      out.registry = install.registry;
    }
  }
  return out;
}

export class Responder implements PromptResponder {
  constructor(
    private risks: readonly RiskPattern[],
    private policy: Policy,
  ) {}

  /** Swaps in reloaded rules or policy; the next decision uses them, never half of each. */
  update(risks: readonly RiskPattern[], policy: Policy): void {
    this.risks = risks;
    this.policy = policy;
  }

  decide(input: ResponderInput): Decision {
    const c = classify(input);
    const base = { class: c.class, packages: c.packages, command: c.command, risks: [] as RiskHit[], keys: [] as string[] };
    const escalate = (layer: Layer, why: string, extra: Partial<Decision> = {}): Decision => ({ ...base, ...extra, kind: 'escalate', layer, why });
    const risks = scanRisks(this.risks, c.command ? [c.context, c.command] : [c.context]);
    if (risks.length) {
      return escalate('risk', `risky: ${risks.map((r) => `${r.id} («${r.text}»)`).join(', ')}`, { class: 'destructive', risks });
    }
    const policy = this.checkPolicy(c, input.env);
    if (policy) return escalate('policy', policy);
    const guard = checkGuard(input);
    if (guard) return escalate('guard', guard);
    const act = checkAnswerKeys(input.match);
    if (act) return escalate('act', act);
    const names = c.packages.map((p) => `${p.name}${p.version ? `@${p.version}` : ''}`).join(', ');
    return { ...base, kind: 'answer', layer: 'act', why: `allow-listed ${c.packages[0]!.ecosystem} install: ${names}`, keys: [...input.match.rule.answer] };
  }

  private checkPolicy(c: Classified, env: ResponderInput['env']): string | null {
    if (c.class !== 'dependency') return `class ${c.class} is never answered automatically`;
    if (c.unparsed.length) return `could not read the package list: ${c.unparsed.join('; ')}`;
    if (c.packages.length === 0) return 'no packages found in the prompt';
    for (const pkg of c.packages) {
      const v = checkPackage(this.policy, pkg, c.registry ?? jobRegistry(pkg.ecosystem, env));
      if (!v.ok) return v.why;
    }
    return null;
  }
}

/** First word's basename, lower-cased: `npm exec cowsay` → npm, `/usr/bin/node` → node. */
export function programName(foreground: string): string {
  const first = foreground.trim().split(/\s+/)[0] ?? '';
  return (first.split('/').pop() ?? '').toLowerCase();
}

function checkGuard(input: ResponderInput): string | null {
  const rule = input.match.rule;
  if (input.askedBefore) return 'the same prompt came back after an answer';
  if (!cursorAtPrompt(input)) return 'the cursor is not at the prompt';
  if (rule.programs.length === 0) return `rule ${rule.id} names no program to check the foreground against`;
  if (input.foreground === null) return 'the foreground program is unknown';
  const fg = programName(input.foreground);
  if (!rule.programs.map((p) => p.toLowerCase()).includes(fg)) {
    return `the foreground program is ${fg}, not ${rule.programs.join('/')}: possibly a spoofed prompt`;
  }
  return null;
}

/**
 * Line prompts need the cursor right after them; dialogs (cursor: any) need
 * it inside the dialog or just below it — TUIs park a hidden cursor on the
 * highlighted option (Claude Code) or under the frame.
 */
function cursorAtPrompt({ match, screen }: ResponderInput): boolean {
  if (match.rule.cursor !== 'any') return cursorAllows(match.rule.cursor, screen, lastNonBlankRow(screen.rows));
  return screen.cursor.y >= match.top && screen.cursor.y <= match.bottom + NEAR_ROWS;
}

const PLAIN_YES = /^(?:yes|allow once|yes, allow once|yes, proceed|proceed|ok)\b/i;
const WIDER = /don'?t ask|always|auto|session|\ball\b|remember|trust|never ask/i;

/** Digit answers must select a plain yes; a "yes, and don't ask again" is never chosen. */
function checkAnswerKeys(match: PromptMatch): string | null {
  for (const key of match.rule.answer) {
    if (!/^\d$/.test(key)) continue;
    const option = new RegExp(`^\\s*(?:[❯›>●▶]\\s*)?(?:│\\s*)?(?:[❯›>●▶]\\s*)?${key}[.)]\\s+(.+?)\\s*│?\\s*$`, 'm').exec(match.text);
    if (!option) return `option ${key} is not on screen`;
    const label = option[1]!;
    if (!PLAIN_YES.test(label) || WIDER.test(label)) return `option ${key} is «${label}», not a plain yes`;
  }
  return null;
}
