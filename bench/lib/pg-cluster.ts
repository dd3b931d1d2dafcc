/**
 * A private PostgreSQL cluster for a bench run or a test file (test/helpers/fleet.ts): `initdb`
 * into a temporary folder, `pg_ctl start` on a free loopback port, one
 * fresh database per test, `pg_ctl stop` at the end. Debian's server
 * binaries live in /usr/lib/postgresql/<major>/bin, off the PATH.
 *
 * PostgreSQL refuses to run as root. Under root (CI, this sandbox) the
 * cluster belongs to the `postgres` user the Debian package creates and
 * the tools run through `runuser`; otherwise as the caller.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The newest installed server's bin folder, or null when no server is installed. */
export function pgBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], 'bin') : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export class PgCluster {
  private databases = 0;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
    private readonly asUser: string | null,
  ) {}

  /** initdb + start. Throws with the tool's output when PostgreSQL is not installed or will not start. */
  static async start(): Promise<PgCluster> {
    const bin = pgBinDir();
    if (!bin) throw new Error('no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)');
    const root = mkdtempSync(join(tmpdir(), 'ns-pg-'));
    const asUser = userInfo().uid === 0 ? 'postgres' : null;
    if (asUser) {
      const { stdout } = await run('id', ['-u', asUser]);
      const { stdout: gid } = await run('id', ['-g', asUser]);
      chownSync(root, Number(stdout.trim()), Number(gid.trim()));
    }
    chmodSync(root, 0o700);
    const c = new PgCluster(root, await freePort(), bin, asUser);
    await c.tool('initdb', ['-D', c.data, '-U', 'nightshift', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
    await c.startServer();
    return c;
  }

  get data(): string {
    return join(this.dir, 'data');
  }

  /** A URL for the cluster's maintenance database. */
  url(database = 'postgres'): string {
    return `postgres://nightshift@127.0.0.1:${this.port}/${database}`;
  }

  /** A new empty database, its URL: one per test. */
  async database(prefix = 't'): Promise<string> {
    const name = `${prefix}_${process.pid}_${++this.databases}`;
    const c = new pg.Client({ connectionString: this.url() });
    await c.connect();
    try {
      await c.query(`CREATE DATABASE ${name}`);
    } finally {
      await c.end();
    }
    return this.url(name);
  }

  /** pg_ctl start on the same port and folder (also after stopServer: the outage tests). */
  async startServer(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await this.tool('pg_ctl', ['-D', this.data, '-o', opts, '-l', join(this.dir, 'server.log'), '-w', '-t', '60', 'start']);
  }

  /** pg_ctl stop -m fast: connections are cut at once, as when the server goes away. */
  async stopServer(): Promise<void> {
    await this.tool('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']);
  }

  /** Stops the server (if up) and removes the folder. */
  async close(): Promise<void> {
    await this.stopServer().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Every server process stopped (SIGSTOP): a database that hangs rather than
   * refuses, as behind a dead NAT or a stalled disk. Connections stay open and
   * queries go unanswered; what was sent runs when thaw() lets it.
   */
  async freeze(): Promise<number[]> {
    const pids = await this.serverPids();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    return pids;
  }

  thaw(pids: readonly number[]): void {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // a backend whose client went away may have been reaped already
      }
    }
  }

  /** The server's processes (the postmaster, from postmaster.pid, and its children), for CPU accounting. */
  async serverPids(): Promise<number[]> {
    const main = Number(readFileSync(join(this.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const { stdout } = await run('pgrep', ['-P', String(main)]).catch(() => ({ stdout: '' }));
    return [main, ...stdout.split('\n').map(Number).filter((n) => n > 0)];
  }

  private async tool(name: string, args: string[]): Promise<void> {
    const path = join(this.bin, name);
    const [cmd, argv] = this.asUser ? ['runuser', ['-u', this.asUser, '--', path, ...args]] : [path, args];
    try {
      await run(cmd, argv, { cwd: this.dir, timeout: 120_000 });
    } catch (e) {
      const err = e as Error & { stdout?: string; stderr?: string };
      throw new Error(`${name} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`, { cause: e });
    }
  }
}
