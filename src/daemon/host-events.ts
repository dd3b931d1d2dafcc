/** What the daemon does when its PTY host dies or another version holds the directory (host-link.ts). */
import type { Logger } from '../supervisor/logger.js';
import { describeError } from '../util/errors.js';
import type { HostLinkEvents } from './host-link.js';
import { killSurvivors } from './survivors.js';

interface Sink {
  readonly onProblem?: (message: string) => void;
}

export function hostEvents(log: Logger, out: Sink): HostLinkEvents {
  return {
    lost(ids, why) {
      log.error({ jobs: ids, why }, 'PTY host died; its jobs are lost');
      out.onProblem?.(`${why}: ${ids.length} job(s) lost; new jobs start a new PTY host`);
      // A child that ignored its terminal's hang-up runs on unsupervised: it must not.
      const survived = killSurvivors(ids);
      if (survived.size) log.warn({ jobs: [...survived] }, 'killed processes of lost jobs that outlived their terminal');
    },
    otherVersion(e, movedTo) {
      log.error({ hostPid: e.hostPid, hostVersion: e.hostVersion, movedTo }, 'a PTY host of another version holds this state directory; moved aside, starting our own');
      out.onProblem?.(`${e.message}; its socket moved to ${movedTo}, a new PTY host serves new jobs`);
    },
    problem(message, e) {
      log.error({ err: e === undefined ? undefined : describeError(e) }, message);
    },
  };
}
