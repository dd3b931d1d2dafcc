/**
 * The files the web view is made of: its own pages (web/ in the package)
 * and the browser builds of xterm.js and asciinema-player, served from the
 * npm packages themselves so nothing is fetched from a CDN at run time.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The package's root: the nearest folder above this file with a web/ beside a package.json (src/ or dist/src/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'web')))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`web/ not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

export interface Assets {
  /** The pages, scripts and styles of web/, served under /assets/. */
  readonly web: string;
  /** Files served under /vendor/, by name: the only vendor files there are. */
  readonly vendor: ReadonlyMap<string, string>;
}

export function assets(): Assets {
  const xterm = dirname(require.resolve('@xterm/xterm/package.json'));
  const player = dirname(require.resolve('asciinema-player/dist/bundle/asciinema-player.min.js'));
  return {
    web: join(packageRoot(), 'web'),
    vendor: new Map([
      ['xterm/xterm.js', join(xterm, 'lib', 'xterm.js')],
      ['xterm/xterm.css', join(xterm, 'css', 'xterm.css')],
      ['asciinema-player/asciinema-player.min.js', join(player, 'asciinema-player.min.js')],
      ['asciinema-player/asciinema-player.css', join(player, 'asciinema-player.css')],
    ]),
  };
}
