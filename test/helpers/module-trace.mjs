// `node --import ./module-trace.mjs`: appends every module URL the process resolves to $NIGHTSHIFT_MODULE_TRACE:
// ES modules as the loader resolves them (module-trace-hooks.mjs), CommonJS ones (a package taken with
// createRequire, which no ES module hook sees) from require's cache when the process exits.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const trace = process.env.NIGHTSHIFT_MODULE_TRACE;
if (trace) {
  register('./module-trace-hooks.mjs', import.meta.url);
  process.on('exit', () => {
    const files = Object.keys(Module._cache).filter((f) => f.startsWith('/'));
    if (files.length > 0) appendFileSync(trace, files.map((f) => `${pathToFileURL(f).href}\n`).join(''));
  });
}
