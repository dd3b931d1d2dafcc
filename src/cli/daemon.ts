/** `nightshift daemon` — run the daemon in the foreground (logs go to the state directory). */
import { resolve } from 'node:path';
import { InputError } from '../util/errors.js';
import { Option, type Command } from 'commander';
import { Daemon } from '../daemon/daemon.js';
import { currentLogFile } from '../daemon/log.js';
import { addWatchdogFlags, defaultRulesPath, durationArg, durationHelp, intArg, policyPathOf, RECORDING_CAP_HELP, sizeArg, watchdogConfig, type WatchdogFlags } from './common.js';
import { surviveHangup } from './hangup.js';
import { addStateFlag, stateDirOf, type StateFlag } from './daemon-client.js';
import { listenPlan, type HttpFlags } from '../web/listen.js';
import { replaceRunningDaemon } from './replace.js';
import { ON_SIGNAL, stopOnSignals, type OnSignal } from './daemon-signals.js';
import { toolGapWarning } from './flag-traps.js';
import { hostname } from 'node:os';
import { hostNameSchema, parseBoardUrl, safeUrl } from '../fleet/names.js';

/** --board (or NIGHTSHIFT_BOARD, which a daemon takes even with --state) and --host. */
function fleetOf(flags: DaemonFlags): { url: string; host: string } | null {
  const url = flags.board !== undefined ? parseBoardUrl(flags.board, '--board') : process.env.NIGHTSHIFT_BOARD ? parseBoardUrl(process.env.NIGHTSHIFT_BOARD, 'NIGHTSHIFT_BOARD') : null;
  if (!url) {
    if (flags.host !== undefined) throw new InputError('--host names this daemon on a fleet board: give --board postgres://… (or NIGHTSHIFT_BOARD) too');
    return null;
  }
  const name = flags.host ?? hostname();
  const r = hostNameSchema.safeParse(name);
  if (!r.success) throw new InputError(`--host "${name}" is not a valid host name: ${r.error.issues[0]!.message}`);
  return { url, host: name };
}

interface DaemonFlags extends WatchdogFlags, StateFlag, Partial<HttpFlags> {
  maxRunning: number;
  rules?: string;
  policy?: string;
  tick: number;
  recordingCap?: number;
  replace?: boolean;
  host?: string;
  onSignal: OnSignal;
}

export function registerDaemon(program: Command): void {
  const cmd = program
    .command('daemon')
    .description('run the daemon: a task board, a job queue and paging for one state directory (foreground)')
    .option('--max-running <n>', 'jobs running at once', intArg('--max-running', 1, 256), 4)
    .option('--rules <path>', 'rules directory or file (default: the shipped rules/)')
    .option('--policy <file>', 'default auto-answer policy for jobs that name none (default: your policy.yaml in the state or config folder, else the rules directory\'s)')
    .option('--recording-cap <size>', RECORDING_CAP_HELP, sizeArg('--recording-cap'))
    .option('--http <host:port>', 'serve the web view and the HTTP API there (off by default; loopback, or TLS, or --http-insecure)')
    .option('--tls-cert <file>', 'PEM certificate for --http (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key for --http (with --tls-cert)')
    .option('--replace', 'take over from the daemon running on this state directory: it detaches, this one adopts its jobs (the upgrade path)')
    .option('--host <name>', 'this daemon\'s name on a fleet board (with --board or $NIGHTSHIFT_BOARD; default: the machine\'s hostname)')
    .addOption(
      new Option('--on-signal <mode>', 'what SIGTERM and SIGINT do: drain (finish running jobs; again: stop them) or detach (exit at once, jobs run on for the next daemon: for a service manager)')
        .choices(ON_SIGNAL)
        .default('drain'),
    )
    .option('--http-insecure', 'allow --http on a non-loopback address without TLS (tokens cross the network in clear)')
    .addOption(
      // The default is shown as a duration: commander would print the bare 1000 (ms).
      new Option('--tick <duration>', durationHelp('how often the queue and the page outbox are looked at')).argParser(durationArg('--tick', 1)).default(1_000, '1s'),
    );
  addWatchdogFlags(addStateFlag(cmd)).action(async (flags: DaemonFlags) => {
    const stateDir = stateDirOf(flags);
    const rulesPath = resolve(flags.rules ?? defaultRulesPath());
    // A bad address or an unreadable certificate refuses the start (exit 2) before anything is touched.
    const http = flags.http !== undefined ? listenPlan({ ...flags, http: flags.http }) : null;
    if (http === null && (flags.tlsCert || flags.tlsKey || flags.httpInsecure)) {
      throw new InputError(`${flags.tlsCert ? '--tls-cert' : flags.tlsKey ? '--tls-key' : '--http-insecure'} needs --http HOST:PORT`);
    }
    const fleet = fleetOf(flags);
    const gap = toolGapWarning(watchdogConfig(flags));
    if (gap) process.stderr.write(`nightshift daemon: warning: ${gap}\n`);
    const signalStop = stopOnSignals(flags.onSignal, (line) => process.stderr.write(`nightshift daemon: ${line}\n`));
    const hangup = surviveHangup((line) => process.stderr.write(`nightshift daemon: ${line}\n`));
    if (flags.replace) await replaceRunningDaemon(stateDir, (line) => process.stderr.write(`nightshift daemon: ${line}\n`));
    const daemon = await Daemon.start({
      stateDir,
      maxRunning: flags.maxRunning,
      rulesPath,
      policyPath: policyPathOf(flags.policy, stateDir, rulesPath),
      config: watchdogConfig(flags),
      tickMs: flags.tick,
      http,
      fleet,
      ...(flags.recordingCap ? { recordingCap: flags.recordingCap } : {}),
      onProblem: (message) => process.stderr.write(`nightshift daemon: ${message}\n`),
    });
    hangup.logTo(daemon.log);
    for (const w of daemon.startup.warnings) process.stderr.write(`nightshift daemon: warning: ${w}\n`);
    process.stderr.write(`${startLine(daemon, fleet)}\n`);
    signalStop.attach(daemon);
    await daemon.stoppedPromise;
    process.stderr.write('nightshift daemon: stopped\n');
    // The board is closed and the logs flushed; a child that ignored every signal must not keep this process alive.
    process.exit(0);
  });
}

/** What a person checks first: where it lives, what it read, what it took over, how it pages. */
function startLine(d: Daemon, fleet: { url: string; host: string } | null): string {
  const { stateDir, policyPath } = d.opts;
  const config = d.config.file ? `config ${d.config.file}` : `no config.yaml (looked in ${d.config.looked.join(', ')})`;
  const policy = policyPath ? `policy ${policyPath}` : 'no policy (nothing is auto-answered)';
  const web = d.web ? `, web ${d.web.url}` : '';
  const board = fleet ? `, fleet ${safeUrl(fleet.url)} as host ${fleet.host}${d.fleet?.up ? '' : ' (board unreachable: journaling locally)'}` : '';
  return `nightshift daemon: pid ${process.pid}, state ${stateDir}, ${config}, ${policy}, adopted ${d.adopted} job(s), socket ${d.paths.socket}, log ${currentLogFile(d.paths.log)}, notifiers: ${d.startup.notifiers}${web}${board}`;
}
