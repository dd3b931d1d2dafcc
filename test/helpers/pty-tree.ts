/** Test teardown for PTY jobs: a non-interactive shell's children are not hung up with it, so each is killed. */
import type { PtyHost } from '../../src/pty/host.js';
import { readProcessTree } from '../../src/pty/proctree.js';

export function killTree(host: PtyHost): void {
  for (const p of readProcessTree(host.pid).reverse()) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  host.dispose();
}
