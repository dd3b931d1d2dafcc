/**
 * The file a worker thread runs, beside the module that starts it. Under
 * vitest the sources run uncompiled (.ts) and a worker cannot: it is taken
 * from the build, which `npm test` makes first.
 */
export function workerUrl(relative: string, from: string): URL {
  const url = new URL(relative, from);
  return from.endsWith('.ts') ? new URL(url.href.replace(/\/src\//, '/dist/src/')) : url;
}
