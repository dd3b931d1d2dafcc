import type { z } from 'zod';
import type { CommandRecord } from '../src/api/command.js';

/** ES module source exporting COMPILED_CHECKS: one validator per read-only command, by name. */
export function compiledChecksSource(commands: readonly CommandRecord[], zod: typeof z): string;
