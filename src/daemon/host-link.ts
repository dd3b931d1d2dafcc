/**
 * The daemon's line to its PTY host (../ptyhost/server.ts): every job's
 * terminal is spawned there, so jobs outlive the daemon, and adopted from
 * there after a restart. If the connection ends while the host lives (it
 * cuts off a client that stalls), each job reattaches from the byte it got
 * to; if the host died, its jobs are lost (`onLost`) and the next job starts
 * a new host.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { PtyHostClient, PtyHostVersionError } from '../ptyhost/client.js';
import { HostedPty } from '../ptyhost/hosted-pty.js';
import { HostRecording } from '../ptyhost/host-recording.js';
import type { JobInfo } from '../ptyhost/protocol.js';
import type { JobTerminal } from '../supervisor/job-terminal.js';
import { isAlive } from './lock.js';

export interface HostLinkEvents {
  /** The host holding these jobs died; their terminals went with it. */
  lost(ids: string[], why: string): void;
  /** A host of another protocol version holds the directory: moved aside, it keeps its jobs. */
  otherVersion(e: PtyHostVersionError, movedTo: string): void;
  problem(message: string, e?: unknown): void;
}

export class HostLink {
  private client: PtyHostClient | undefined;
  private connecting: Promise<PtyHostClient> | undefined;
  private readonly jobs = new Map<string, HostedPty>();
  private closing = false;
  /** Pids of hosts of another version found at start: their jobs are not ours to adopt or kill. */
  readonly otherHosts: number[] = [];

  constructor(
    private readonly stateDir: string,
    private readonly events: HostLinkEvents,
    private readonly hostArgs: string[] = [],
  ) {}

  /** The host's pid, once connected. */
  get hostPid(): number | undefined {
    return this.client?.hostPid;
  }

  /** Connected to the host (started when none answers), once; a caller after a host's death gets a new one. */
  connect(): Promise<PtyHostClient> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async list(): Promise<JobInfo[]> {
    return (await this.connect()).list();
  }

  /** Ends a job the host runs that no board row supervises. */
  async kill(id: string): Promise<void> {
    await (await this.connect()).kill(id, 'SIGKILL');
  }

  /** A new job's terminal, on the host; the host writes its recording. */
  readonly spawner: JobTerminal = {
    open: async (r) => {
      const client = await this.connect();
      const pty = await HostedPty.spawn(client, r.id, { ...r.spawn, recording: r.recording.path, header: r.recording.header, clientCloses: true, ...(r.recording.cap ? { recordingCap: r.recording.cap } : {}) });
      return { pty: this.track(pty), recording: new HostRecording(pty) };
    },
  };

  /** A job the host already runs (or ran while no daemon watched): everything the host still holds of its output, then live. */
  adopter(): JobTerminal {
    return {
      open: async (r) => {
        const pty = await HostedPty.adopt(await this.connect(), r.id, 0);
        return { pty: this.track(pty), recording: new HostRecording(pty), adopted: { replay: pty.takeReplay() } };
      },
    };
  }

  /** Lets go of the host; the jobs run on in it (shutdown --detach, or the end of a daemon whose jobs all ended). */
  close(): void {
    this.closing = true;
    this.client?.close();
  }

  private track(pty: HostedPty): HostedPty {
    this.jobs.set(pty.id, pty);
    void pty.exited.finally(() => this.jobs.delete(pty.id));
    return pty;
  }

  private async open(): Promise<PtyHostClient> {
    let client: PtyHostClient;
    try {
      client = await PtyHostClient.connect(this.stateDir, { hostArgs: this.hostArgs });
    } catch (e) {
      if (!(e instanceof PtyHostVersionError)) throw e;
      this.events.otherVersion(e, this.moveAside(e));
      client = await PtyHostClient.connect(this.stateDir, { hostArgs: this.hostArgs });
    }
    this.client = client;
    client.onClose((e) => void this.closed(client, e));
    return client;
  }

  /**
   * Moves the other host's socket and lock to names of its own: it goes on
   * serving its jobs there (a nightshift of its version can reach them), and
   * a host of ours can start in its place. Neither host removes the other's
   * files (the socket is checked by inode, the lock by pid).
   */
  private moveAside(e: PtyHostVersionError): string {
    const run = join(this.stateDir, 'run');
    const to = join(run, `ptyhost.${e.hostPid}.sock`);
    renameSync(e.socket, to);
    try {
      renameSync(join(run, 'ptyhost.lock'), join(run, `ptyhost.${e.hostPid}.lock`));
    } catch {
      // No lock file (a host that never took one): nothing to move.
    }
    this.otherHosts.push(e.hostPid);
    return to;
  }

  private async closed(client: PtyHostClient, e: Error): Promise<void> {
    if (this.client === client) this.client = undefined;
    if (this.closing || this.jobs.size === 0) return;
    const ids = [...this.jobs.keys()];
    if (isAlive(client.hostPid)) {
      try {
        const again = await PtyHostClient.connect(this.stateDir, { start: false });
        if (again.hostPid === client.hostPid) {
          this.client = again;
          again.onClose((err) => void this.closed(again, err));
          for (const pty of this.jobs.values()) await pty.reattach(again);
          this.events.problem(`the PTY host (pid ${client.hostPid}) cut the daemon off (${e.message}); reattached ${ids.length} job(s)`);
          return;
        }
        again.close();
      } catch (err) {
        this.events.problem(`the PTY host (pid ${client.hostPid}) lives but does not answer`, err);
      }
    }
    const why = `the PTY host (pid ${client.hostPid}) died (${e.message}); the job's terminal went with it`;
    for (const pty of this.jobs.values()) pty.lost(why);
    this.events.lost(ids, why);
  }
}
