/**
 * Whether a folder's file system is a local one, whose change notifications
 * (inotify) reach a watcher for every write made on this machine. A network
 * or FUSE file system may lose some, so a follower polls it more often.
 */
import { statfs } from 'node:fs/promises';

/** statfs(2) f_type of local disk and memory file systems. */
const LOCAL_TYPES = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs
]);

/** False when the kind is unknown or cannot be read: the caller then assumes the worst. */
export async function notifiesLocally(folder: string): Promise<boolean> {
  try {
    return LOCAL_TYPES.has((await statfs(folder)).type >>> 0);
  } catch {
    return false;
  }
}
