/**
 * The file a worker thread runs, by its path under the build's dist/src:
 * found from the package's folder, not from the module that starts it,
 * which may be a chunk of the CLI's bundle. Under vitest the sources run
 * uncompiled (.ts) and a worker cannot: it is taken from the build, which
 * `npm test` makes first.
 */
import { pathToFileURL } from 'node:url';
import { packagePath } from './package.js';

export function workerUrl(pathInSrc: string): URL {
  return pathToFileURL(packagePath('dist', 'src', ...pathInSrc.split('/')));
}
