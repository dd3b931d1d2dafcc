import { PLAIN_SCAN_WASM } from './plain-scan-wasm.js';
import { lazyWasm } from '../util/wasm-module.js';

/**
 * Whether UTF-8 bytes are plain text for collapse.ts: printable characters,
 * tabs, CR LF pairs, SGR and EL sequences, nothing else. The scan runs in
 * WebAssembly sixteen bytes a step (plain-scan.wat): it is most of what a
 * flood costs the supervisor's thread, and on two cores every nanosecond a
 * byte the supervisor spends is one the job's writer waits for.
 */
export function plainBytes(data: Uint8Array): boolean {
  const { scan, window } = scanner();
  for (let off = 0, n = data.length; off < n; ) {
    const m = Math.min(CHUNK, n - off);
    window.set(data.subarray(off, off + m));
    const r = scan(m);
    if (r < 0) return false;
    if (r === m) {
      off += m;
      continue;
    }
    // A sequence that goes on past this chunk: from its start with what follows. One that does not
    // end by the end of the data, or is longer than a chunk, is not plain.
    if (off + m === n || r === 0) return false;
    off += r;
  }
  return true;
}

/** The module's memory: one 64 KiB page, which the bytes pass through a chunk at a time. */
const CHUNK = 64 * 1024;

const scanner = lazyWasm(PLAIN_SCAN_WASM, (exports) => {
  const e = exports as { scan(n: number): number; memory: WebAssembly.Memory };
  return { scan: e.scan, window: new Uint8Array(e.memory.buffer, 0, CHUNK) };
});
