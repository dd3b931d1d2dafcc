import { spawn } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { parseMarker, ttyModeMarker } from '../core/tool-events.js';
import { parseStty, readTtyMode } from './tty-mode.js';
import { until } from '../../test/helpers/until.js';

describe('the terminal mode', () => {
  it("reads echo off and canonical from a real PTY where getpass waits", async () => {
    const p = spawn('python3', ['-c', 'import getpass; getpass.getpass("code: ")'], { cols: 80, rows: 24 });
    let out = '';
    p.onData((d) => (out += d));
    try {
      await until(() => out.includes('code:'), 10_000, 'the prompt');
      const mode = await readTtyMode(p.pid);
      expect(mode).toEqual({ canonical: true, echo: false });
    } finally {
      p.kill('SIGKILL');
    }
  });

  it("parses stty's words and round-trips the marker drills replay", () => {
    expect(parseStty('speed 38400 baud; line = 0;\n-icanon -echo isig')).toEqual({ canonical: false, echo: false });
    expect(parseStty('icanon echo')).toEqual({ canonical: true, echo: true });
    expect(parseStty('nothing')).toBeUndefined();
    expect(parseMarker(ttyModeMarker({ canonical: true, echo: false }))).toEqual({ kind: 'tty-mode', mode: { canonical: true, echo: false } });
  });
});
