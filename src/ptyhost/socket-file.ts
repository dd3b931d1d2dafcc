/** The host's socket file: bound with no moment of wider access, and told apart from a successor's by its inode. */
import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';

/**
 * Binds under a temporary name, sets 0600, then renames into place: never a
 * moment of wider access. (The same steps as the daemon's ControlServer.listen,
 * which can call this once it is free to change.)
 */
export async function listenPrivate(path: string, onConnection: (s: Socket) => void): Promise<Server> {
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(tmp, () => resolve());
  });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return server;
}

export function inode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
