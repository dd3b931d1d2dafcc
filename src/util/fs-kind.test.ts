import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { notifiesLocally } from './fs-kind.js';

describe('notifiesLocally', () => {
  it('agrees with stat -f on this machine\'s temp folder, and says false for a folder that is not there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ns-fskind-'));
    try {
      const kind = execFileSync('stat', ['-f', '-c', '%T', dir], { encoding: 'utf8' }).trim();
      const local = /^(ext2\/ext3|xfs|btrfs|zfs|f2fs|bcachefs|tmpfs|ramfs|overlayfs)$/.test(kind);
      expect(await notifiesLocally(dir)).toBe(local);
      expect(await notifiesLocally(join(dir, 'missing', 'deeper'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says false for /proc, whose files change without a notification', async () => {
    expect(await notifiesLocally('/proc')).toBe(false);
  });
});
