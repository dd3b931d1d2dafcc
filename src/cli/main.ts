/**
 * What `nightshift` runs first. The read-only verbs and --version run
 * here; every other verb, --help and a name that is none go to the whole
 * verb table (verbs.ts). The build bundles this file with all it imports
 * (scripts/build-cli.mjs): a read-only verb resolves no other file of ours,
 * commander included, and checks its reply without zod, so `nightshift
 * board` costs little more than starting Node; verbs.ts and each verb are
 * chunks of the same bundle, loaded only when asked for, so no class of
 * ours is ever loaded twice in one process.
 */
import { registerBoard } from './board.js';
import { registerDigest } from './digest.js';
import { runProgram, verbOf, type Verb } from './program.js';
import { registerShow } from './show.js';
import { registerStatus } from './status.js';

const READ_ONLY: readonly Verb[] = [
  ['board', async () => registerBoard],
  ['digest', async () => registerDigest],
  ['show', async () => registerShow],
  ['status', async () => registerStatus],
];

const VERSION_FLAGS = ['--version', '-V'];

const argv = process.argv;
const readOnly = verbOf(argv, READ_ONLY) !== undefined || (argv.length === 3 && VERSION_FLAGS.includes(argv[2]!));
// Not awaited at the top level: in the bundle the lazy parts import the module this code is in, and would wait for it.
void (readOnly ? runProgram(argv, READ_ONLY) : import('./verbs.js').then((all) => all.runEveryVerb(argv)));
