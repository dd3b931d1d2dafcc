/**
 * What a prompt is about: the packages an installer lists, or the command an
 * agent's dialog asks to run, parsed into package references when it is a
 * plain install. Pure; shell-free: anything with shell syntax is not "plain".
 */
import type { Ecosystem, PromptExtract } from '../core/prompt-match.js';

export interface PackageRef {
  readonly ecosystem: Ecosystem;
  readonly name: string;
  /** Exact version when the prompt or command pins one, else null. */
  readonly version: string | null;
  /** A URL, path or git source given instead of a registry name, else null. */
  readonly source: string | null;
}

export interface InstallCommand {
  readonly ecosystem: Ecosystem;
  readonly packages: readonly PackageRef[];
  /** Registry named on the command line (`--registry`, `--index-url`), else null. */
  readonly registry: string | null;
}

/** Packages listed in the prompt text; `unparsed` holds list lines that were not understood. */
export function packagesFromPrompt(x: NonNullable<PromptExtract['packages']>, text: string): { packages: PackageRef[]; unparsed: string[] } {
  const lines = text.split('\n');
  // The LAST header: an answered prompt still on screen above must not speak for this one.
  const start = lines.findLastIndex((l) => x.after.test(l));
  const packages: PackageRef[] = [];
  const unparsed: string[] = [];
  if (start < 0) return { packages, unparsed: ['(package list not found)'] };
  for (const line of lines.slice(start + 1)) {
    const m = x.item.exec(line);
    if (!m?.groups) break;
    if (m.groups.names !== undefined) {
      for (const n of m.groups.names.trim().split(/\s+/)) packages.push(ref(x.ecosystem, n));
    } else if (m.groups.name !== undefined) {
      packages.push(specRef(x.ecosystem, m.groups.name, m.groups.version ?? null));
    } else {
      unparsed.push(line);
    }
  }
  if (packages.length === 0) unparsed.push('(empty package list)');
  return { packages, unparsed };
}

/** The command nearest the bottom: an older dialog's command higher up must not speak for this one. */
export function commandFromPrompt(x: PromptExtract, text: string): string | null {
  for (const re of x.command) {
    const all = [...text.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))];
    const cmd = all.at(-1)?.groups?.cmd?.trim();
    if (cmd) return cmd;
  }
  return null;
}

function ref(ecosystem: Ecosystem, name: string, version: string | null = null, source: string | null = null): PackageRef {
  return { ecosystem, name, version, source };
}

const NON_REGISTRY = /^(?:[a-z+]+:\/\/|git\+|git:|github:|file:|link:|\.{0,2}\/|~\/)/i;

/** `name@version` as npm and npx print it, with scopes; URLs and paths become a source. */
function specRef(ecosystem: Ecosystem, name: string, version: string | null): PackageRef {
  if (NON_REGISTRY.test(name)) return ref(ecosystem, name, null, name);
  if (version !== null && NON_REGISTRY.test(version)) return ref(ecosystem, name, null, version);
  return ref(ecosystem, name, version);
}

/** `lodash`, `lodash@4.17.21`, `@types/node@^20`: the version part only when it is exact. */
function npmSpec(spec: string): PackageRef {
  if (NON_REGISTRY.test(spec)) return ref('npm', spec, null, spec);
  const at = spec.lastIndexOf('@');
  if (at <= 0) return ref('npm', spec);
  const version = spec.slice(at + 1);
  if (NON_REGISTRY.test(version) || version.includes(':')) return ref('npm', spec.slice(0, at), null, version);
  return ref('npm', spec.slice(0, at), /^\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/.test(version) ? version : null);
}

/** `requests`, `requests==2.31.0`, `requests>=2`: exact only with `==`. */
function pipSpec(spec: string): PackageRef {
  if (NON_REGISTRY.test(spec)) return ref('pip', spec, null, spec);
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(==|>=|<=|~=|!=|>|<)?\s*(\S+)?$/.exec(spec);
  if (!m) return ref('pip', spec, null, spec);
  return ref('pip', m[1]!, m[2] === '==' ? (m[3] ?? null) : null);
}

function plainSpec(ecosystem: Ecosystem, spec: string): PackageRef {
  const [name, version] = spec.split(/[=@]/, 2) as [string, string | undefined];
  return ref(ecosystem, name, version ?? null);
}

interface Grammar {
  readonly ecosystem: Ecosystem;
  /** argv prefixes that mean "install" (after an optional `sudo`, which is a risk of its own). */
  readonly verbs: readonly (readonly string[])[];
  /** Flags that take no value and change nothing about what is installed. */
  readonly flags: ReadonlySet<string>;
  readonly registryFlags: ReadonlySet<string>;
  readonly spec: (s: string) => PackageRef;
}

const GRAMMARS: readonly Grammar[] = [
  {
    ecosystem: 'npm',
    verbs: [['npm', 'install'], ['npm', 'i'], ['npm', 'add'], ['pnpm', 'add'], ['pnpm', 'install'], ['yarn', 'add']],
    flags: new Set(['-D', '--save-dev', '-E', '--save-exact', '-S', '--save', '-O', '--save-optional', '--no-audit', '--no-fund', '--dev', '--exact']),
    registryFlags: new Set(['--registry']),
    spec: npmSpec,
  },
  {
    ecosystem: 'pip',
    verbs: [['pip', 'install'], ['pip3', 'install'], ['python', '-m', 'pip', 'install'], ['python3', '-m', 'pip', 'install'], ['uv', 'pip', 'install']],
    flags: new Set(['--user', '-q', '--quiet', '--no-input']),
    registryFlags: new Set(['-i', '--index-url']),
    spec: pipSpec,
  },
  {
    ecosystem: 'apt',
    verbs: [['apt-get', 'install'], ['apt', 'install']],
    flags: new Set(['-y', '--yes', '-q', '--no-install-recommends']),
    registryFlags: new Set(),
    spec: (s) => plainSpec('apt', s),
  },
  {
    ecosystem: 'cargo',
    verbs: [['cargo', 'add'], ['cargo', 'install']],
    flags: new Set(['--dev', '--locked']),
    registryFlags: new Set(['--registry']),
    spec: (s) => plainSpec('cargo', s),
  },
];

/**
 * A command that does nothing but install packages, or null. Shell syntax
 * (`;`, `&&`, `|`, redirections, substitutions, quotes) or an unknown flag
 * makes it not plain: its class then stays what the rule and risk scan say.
 */
export function parseInstallCommand(command: string): InstallCommand | null {
  if (/[;&|<>`$()\\'"*?{}\n]/.test(command)) return null;
  const argv = command.trim().split(/\s+/);
  for (const g of GRAMMARS) {
    const verb = g.verbs.find((v) => v.every((w, i) => argv[i] === w));
    if (verb) return parseArgs(g, argv.slice(verb.length));
  }
  return null;
}

function parseArgs(g: Grammar, args: string[]): InstallCommand | null {
  const packages: PackageRef[] = [];
  let registry: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (g.registryFlags.has(flag)) {
      registry = inline ?? args[++i] ?? null;
      if (registry === null) return null;
    } else if (a.startsWith('-')) {
      if (!g.flags.has(a)) return null;
    } else {
      packages.push(g.spec(a));
    }
  }
  return packages.length ? { ecosystem: g.ecosystem, packages, registry } : null;
}
