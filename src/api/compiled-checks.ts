/**
 * The result schemas of the read-only commands (role `viewer`), compiled
 * to plain functions: the build (scripts/build-cli.mjs) replaces this
 * module in the CLI's bundle with validators generated from the very zod
 * schemas of results.ts, so `board`, `show` and `status` check a reply
 * without loading zod. Unbundled (a build by tsc alone, tests from src/)
 * there are none, and every reply is checked by zod itself.
 */
export type CompiledCheck = (reply: unknown) => boolean;

export const COMPILED_CHECKS: Readonly<Record<string, CompiledCheck>> | null = null;
