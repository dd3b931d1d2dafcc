/**
 * Which rows of the viewport changed since the screen was last read, from
 * xterm's own refresh requests: the rows its renderer would redraw. A
 * snapshot reads only those again: reading every row's text back out of
 * xterm was a third of a drill's time on recordings whose screen changes a
 * line at a time (an agent's TUI). When xterm's internals are not there
 * (@xterm/headless is pinned), every row is read, as before.
 */
import type { Terminal } from '@xterm/headless';

interface RefreshSource {
  onRequestRefreshRows?(listener: (e: { start: number; end: number } | undefined) => void): { dispose(): void };
}

export class DirtyRows {
  private from = Infinity;
  private to = -1;
  private all = true;
  private readonly supported: boolean;
  /** take()'s answer, reused: a snapshot is taken at every look. */
  private readonly range: [number, number] = [0, -1];

  constructor(term: Terminal) {
    const source = (term as unknown as { _core?: { _inputHandler?: RefreshSource } })._core?._inputHandler;
    this.supported = typeof source?.onRequestRefreshRows === 'function';
    source?.onRequestRefreshRows?.((e) => (e ? this.mark(e.start, e.end) : this.markAll()));
  }

  mark(from: number, to: number): void {
    this.from = Math.min(this.from, from);
    this.to = Math.max(this.to, to);
  }

  /** Everything is to be read again (a resize, a buffer switch). */
  markAll(): void {
    this.all = true;
  }

  /** The rows to read again, inclusive (good until the next take), or 'all', or null for none; then starts afresh. */
  take(): 'all' | readonly [number, number] | null {
    const range = this.range;
    range[0] = this.from;
    range[1] = this.to;
    const out = !this.supported || this.all ? 'all' : this.to < 0 ? null : range;
    this.all = false;
    this.from = Infinity;
    this.to = -1;
    return out;
  }
}
