// Module hooks (they run on a loader thread): each resolved URL, one per line.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.NIGHTSHIFT_MODULE_TRACE, `${r.url}\n`);
  return r;
}
