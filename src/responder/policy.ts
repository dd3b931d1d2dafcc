/**
 * The auto-answer policy: which packages, from which registries, may be
 * installed without asking a person. Everything not allowed here is escalated.
 */
import semver from 'semver';
import type { Ecosystem } from '../core/prompt-match.js';
import type { PackageRef } from './packages.js';
import type { OnUnanswered } from '../core/unanswered.js';

export interface AllowEntry {
  readonly ecosystem: Ecosystem;
  readonly name: string;
  /** A semver range the version must satisfy; null = any version (also an unpinned one). */
  readonly range: string | null;
}

export interface Policy {
  readonly allow: readonly AllowEntry[];
  /** Registries each ecosystem may install from; `system` stands for apt's configured sources. */
  readonly registries: Readonly<Partial<Record<Ecosystem, readonly string[]>>>;
  readonly file: string | null;
  /** `on_unanswered:`: decline a paged prompt nobody answered in time (jobs without their own setting). */
  readonly onUnanswered?: OnUnanswered;
}

/** Auto-answers nothing: the policy used when none is given. */
export const EMPTY_POLICY: Policy = { allow: [], registries: {}, file: null };

/** Where a job installs from when nothing says otherwise. */
export const DEFAULT_REGISTRY: Readonly<Record<Ecosystem, string>> = {
  npm: 'https://registry.npmjs.org/',
  pip: 'https://pypi.org/simple/',
  apt: 'system',
  cargo: 'https://crates.io/',
  gem: 'https://rubygems.org/',
  go: 'https://proxy.golang.org/',
};

/** Environment variables that point an ecosystem at another registry. */
const REGISTRY_ENV: Partial<Record<Ecosystem, readonly string[]>> = {
  npm: ['npm_config_registry', 'NPM_CONFIG_REGISTRY'],
  pip: ['PIP_INDEX_URL', 'pip_index_url'],
  cargo: ['CARGO_REGISTRY_DEFAULT'],
};

/** The variables worth recording with a job so a drill can judge sources the same way. */
export const REGISTRY_ENV_NAMES: readonly string[] = Object.values(REGISTRY_ENV).flat();

export function jobRegistry(ecosystem: Ecosystem, env: Readonly<Record<string, string | undefined>>): string {
  for (const name of REGISTRY_ENV[ecosystem] ?? []) {
    const v = env[name];
    if (v) return v;
  }
  return DEFAULT_REGISTRY[ecosystem];
}

const normalizeUrl = (u: string) => (u === 'system' ? u : u.replace(/\/+$/, '/').replace(/([^/])$/, '$1/'));

/** pip treats `Foo_Bar`, `foo-bar` and `foo.bar` as one name (PEP 503). */
function sameName(eco: Ecosystem, a: string, b: string): boolean {
  if (eco === 'pip') return a.toLowerCase().replace(/[-_.]+/g, '-') === b.toLowerCase().replace(/[-_.]+/g, '-');
  if (eco === 'apt') return a.replace(/:\w+$/, '') === b;
  return a === b;
}

export type Verdict = { ok: true } | { ok: false; why: string };

export function checkPackage(p: Policy, pkg: PackageRef, registry: string): Verdict {
  const label = `${pkg.ecosystem}:${pkg.name}${pkg.version ? `@${pkg.version}` : ''}`;
  if (pkg.source !== null) return { ok: false, why: `${label} comes from ${pkg.source}, not a registry` };
  const allowedRegistries = (p.registries[pkg.ecosystem] ?? [DEFAULT_REGISTRY[pkg.ecosystem]]).map(normalizeUrl);
  if (!allowedRegistries.includes(normalizeUrl(registry))) {
    return { ok: false, why: `${label} would come from ${registry}, which the policy does not allow` };
  }
  const entries = p.allow.filter((e) => e.ecosystem === pkg.ecosystem && sameName(e.ecosystem, pkg.name, e.name));
  if (entries.length === 0) return { ok: false, why: `${label} is not on the allow-list` };
  if (entries.some((e) => e.range === null)) return { ok: true };
  if (pkg.version === null) return { ok: false, why: `${label} has no pinned version; the allow-list wants ${entries.map((e) => e.range).join(' or ')}` };
  const version = semver.coerce(pkg.version)?.version ?? null;
  if (version && entries.some((e) => semver.satisfies(version, e.range!))) return { ok: true };
  return { ok: false, why: `${label} is outside the allowed range ${entries.map((e) => e.range).join(' or ')}` };
}
