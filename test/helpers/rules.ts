import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseRuleFile } from '../../src/rules/load.js';

export const RULES_DIR = fileURLToPath(new URL('../../rules/', import.meta.url));
const file = `${RULES_DIR}prompts.yaml`;

/** The shipped rules, loaded once: tests check what users actually get. */
export const shippedRules = parseRuleFile(readFileSync(file, 'utf8'), file);
