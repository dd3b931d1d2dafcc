/**
 * The files the web view is made of: its own pages (web/ in the package)
 * and the browser builds of xterm.js and asciinema-player, served from the
 * npm packages themselves so nothing is fetched from a CDN at run time.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packagePath } from '../util/package.js';

const require = createRequire(import.meta.url);

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
    web: packagePath('web'),
    vendor: new Map([
      ['xterm/xterm.js', join(xterm, 'lib', 'xterm.js')],
      ['xterm/xterm.css', join(xterm, 'css', 'xterm.css')],
      ['asciinema-player/asciinema-player.min.js', join(player, 'asciinema-player.min.js')],
      ['asciinema-player/asciinema-player.css', join(player, 'asciinema-player.css')],
    ]),
  };
}
