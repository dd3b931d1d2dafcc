/**
 * What a daemon is made of, opened in order at its start: the rules first
 * (bad ones refuse the start), then the notify config, the board, the log,
 * the pager, the control socket's and the web view's commands, and the
 * link to the PTY host; and how it joins a fleet.
 */
import { Board } from '../board/board.js';
import { WriteBehind } from '../board/write-behind.js';
import { FleetDb } from '../fleet/db.js';
import { FleetLink } from '../fleet/link.js';
import { PgOutbox } from '../fleet/outbox.js';
import { FleetCommands } from '../fleet/web.js';
import { loadNotifyConfig, type NotifyConfig } from '../notify/config.js';
import { Pager } from '../notify/pager.js';
import { startupReport, type StartupReport } from '../notify/startup.js';
import type { Logger } from '../supervisor/logger.js';
import { findConfig, type Found } from '../util/home.js';
import type { DisposableStore } from '../util/lifecycle.js';
import { WebAuth } from '../people/auth-store.js';
import { pageLinker } from '../web/page-links.js';
import { DaemonBundles } from './bundles.js';
import type { CommandTable } from '../api/command.js';
import type { Commands } from './command.js';
import type { DaemonOptions } from './daemon-options.js';
import type { CommandHost } from '../api/host.js';
import type { WriteFailure } from '../board/write-behind.js';
import type { Logger as JobLogger } from '../supervisor/logger.js';
import type { Commands as DaemonCommands } from './command.js';
import { packageVersion } from '../util/package.js';
import { handlers } from './handlers.js';
import { hostEvents } from './host-events.js';
import { HostLink } from './host-link.js';
import { jobRedactors } from '../notify/job-secrets.js';
import { daemonLogger } from './log.js';
import type { DaemonPaths } from './paths.js';
import { ControlServer } from './server.js';

/**
 * What a start has opened so far: each part's release is registered in
 * `parts` as it opens, so a failed start and a stop release the same list,
 * newest first. The log and the daemon, once they exist.
 */
/**
 * What the parts ask of the daemon they make up, once it exists: the
 * handlers' port, and where a board write that failed is reported. The
 * daemon implements it; the parts never see the class.
 */
export interface Assembled extends CommandHost {
  boardNotWritten(f: WriteFailure): void;
  readonly commands: DaemonCommands;
  readonly log: JobLogger;
}

export interface Opening {
  readonly parts: DisposableStore;
  log?: Logger;
  daemon?: Assembled;
}

/** With --board: the fleet's database, and this daemon's host name in it. */
export interface FleetPlace {
  readonly db: FleetDb;
  readonly host: string;
}

export interface DaemonParts {
  readonly bundles: DaemonBundles;
  /** The config.yaml read (src/util/home.ts), or none and where it was looked for. */
  readonly config: Found;
  readonly notify: NotifyConfig;
  readonly startup: StartupReport;
  readonly store: WriteBehind;
  readonly board: Board;
  readonly log: Logger;
  readonly fleet: FleetPlace | null;
  readonly pager: Pager;
  readonly commands: Commands;
  /** What the web view serves: the whole fleet's commands on a fleet host. */
  readonly webCommands: CommandTable;
  readonly onError: (e: unknown) => void;
  readonly server: ControlServer;
  readonly webAuth: WebAuth;
  readonly host: HostLink;
}

/** Opens the parts in order, each registered in `opening.parts` as it is taken: a start that fails releases what it took. */
export async function openParts(opts: DaemonOptions, paths: DaemonPaths, opening: Opening): Promise<DaemonParts> {
  const { parts } = opening;
  // The log redacts each job's own secrets, so it opens after the board; reloads only report once it is up.
  const bundles = parts.register(watchedBundles(opts, () => opening.log));
  // Bad rules refuse the start (FILE:LINE, exit 2) before anything else is touched.
  await bundles.for();
  const config = findConfig(opts.stateDir);
  const notify: NotifyConfig = config.file ? await loadNotifyConfig(config.file) : loadNotifyConfig.empty();
  const startup = await startupReport(notify, process.env);
  const store = WriteBehind.open(opts.stateDir, (f) => opening.daemon?.boardNotWritten(f));
  parts.add(() => store.close());
  const board = new Board(store.db);
  const log = (opening.log = daemonLogger(paths.log, jobRedactors(board)));
  const fleet = opts.fleet ? { db: FleetDb.open(opts.fleet.url, { application: `nightshift-daemon ${opts.fleet.host}` }), host: opts.fleet.host } : null;
  // The link closes it first once it runs; a second close is harmless (FleetDb.close).
  if (fleet) parts.add(() => fleet.db.close());
  return { bundles, config, notify, startup, store, board, log, fleet, ...served(opts, paths, { store, notify, log, fleet }, opening) };
}

function watchedBundles(opts: DaemonOptions, log: () => Logger | undefined): DaemonBundles {
  return new DaemonBundles(opts.rulesPath, opts.policyPath, {
    rejected: (problem) => {
      log()?.error({ problem }, 'rules or policy edit rejected; the last good ones stay in force');
      opts.onProblem?.(`rules not reloaded (keeping the last good ones): ${problem}`);
    },
    applied: (policy) => log()?.info({ rules: opts.rulesPath, policy }, 'rules and policy reloaded'),
  });
}

type Served = Pick<DaemonParts, 'pager' | 'commands' | 'webCommands' | 'onError' | 'server' | 'webAuth' | 'host'>;
type Base = Pick<DaemonParts, 'store' | 'notify' | 'log' | 'fleet'>;

/** What the board and the log serve: the pager, the commands of the socket and the web view, people's logins, the PTY host. */
function served(opts: DaemonOptions, paths: DaemonPaths, { store, notify, log, fleet }: Base, opening: Opening): Served {
  const pager = new Pager(store.db, notify, { now: () => Date.now() }, {
    // On a fleet, pages are queued here and sent from the shared outbox by whichever host gets there first.
    ...(fleet ? { store: new PgOutbox(fleet.db, fleet.host) } : {}),
    linker: pageLinker(() => {
      // 'operator' is the most a page link may give: the store caps it by page_person's own token (a viewer stays one).
      const codes = opening.daemon?.webAuth;
      return notify.links && codes ? { baseUrl: notify.links.publicUrl, person: { name: notify.links.pagePerson, role: 'operator' }, codes } : null;
    }),
    onLinkProblem: (e, row) => log.error({ err: e, job: row.job, notifier: row.notifier }, 'page links could not be made; the page goes without them'),
  });
  const commands = handlers(() => opening.daemon!);
  // The web view of a fleet host serves the whole fleet; the socket stays this daemon's own.
  const webCommands = fleet ? new FleetCommands(commands, fleet.db, fleet.host) : commands;
  const onError = (e: unknown) => log.error({ err: e }, 'request failed');
  const server = new ControlServer(commands, onError);
  const webAuth = new WebAuth(store.db, { auditPath: paths.webAudit, onAuditError: (e) => log.error({ err: e }, 'web audit log not written') });
  opening.parts.add(() => webAuth.close());
  const host = new HostLink(opts.stateDir, hostEvents(log, opts), opts.ptyhostArgs ?? []);
  opening.parts.add(() => host.close());
  return { pager, commands, webCommands, onError, server, webAuth, host };
}

/** Links are minted for public_url whatever serves it; with no --http here they lead to this daemon only through another. */
export function withStartupWarnings(startup: StartupReport, notify: NotifyConfig, opts: DaemonOptions): StartupReport {
  const noWeb = notify.links && !opts.http ? [`notify.public_url is ${notify.links.publicUrl}, but this daemon has no --http: page links and login URLs lead nowhere unless a proxy reaches a daemon that serves it`] : [];
  return { ...startup, warnings: [...startup.warnings, ...noWeb] };
}

/** The daemon as one host of a fleet (src/fleet/): `liveIds` are the jobs it runs now. */
export function fleetLink(d: Assembled, fleet: FleetPlace, liveIds: () => string[]): FleetLink {
  return new FleetLink(fleet.db, fleet.host, {
    board: d.board,
    pager: d.pager,
    commands: d.commands,
    maxRunning: d.opts.maxRunning,
    log: d.log,
    live: (id) => d.live(id),
    liveIds,
    schedule: () => d.schedule(),
    webUrl: () => d.webBaseUrl,
  }, packageVersion());
}
