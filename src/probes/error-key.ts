/**
 * What makes two failures "the same failure again": the error
 * head with every value masked — quoted values, paths, file names, uuids,
 * hex ids and numbers — so `cat: does-not-exist-3.txt: No such file` and
 * its `-4` twin repeat, while the words of the message stay: a different
 * error is a different key. Pure, like every probe.
 */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const QUOTED = /'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|‘[^’\n]*’|“[^”\n]*”/g;
/** A token with a slash in it: a path, absolute or relative. */
const PATH_TOKEN = /(?:[~.\w-]*\/)+[^\s:,;'"()]*/g;
/** A name with an extension: `does-not-exist-3.txt`, `app.test.ts`. */
const FILE_NAME = /\b[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}\b/g;
/** A hex run long enough to be an id or hash (a digit and a letter among them). */
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
const NUMBER = /\d+(?:\.\d+)*/g;

export function errorKey(head: string): string {
  return head
    .replace(UUID, '<uuid>')
    .replace(QUOTED, '<q>')
    .replace(PATH_TOKEN, '<path>')
    .replace(FILE_NAME, '<file>')
    .replace(HEX_ID, '<hex>')
    .replace(NUMBER, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}
