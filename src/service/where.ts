/** Where each service manager looks for a per-user unit, and where launchd's log goes. */
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { configDir } from '../util/home.js';
import { LAUNCHD_LABEL, SERVICE_NAME, type Manager } from './units.js';

type Env = Readonly<Record<string, string | undefined>>;

export function homeOf(env: Env = process.env): string {
  return env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
}

/** The unit file for `manager`: systemd's user unit folder, launchd's LaunchAgents, nightshift's config folder for pm2. */
export function unitFile(manager: Manager, env: Env = process.env): string {
  switch (manager) {
    case 'systemd':
      // configDir() is $XDG_CONFIG_HOME/nightshift: systemd reads $XDG_CONFIG_HOME/systemd/user.
      return join(dirname(configDir(env)), 'systemd', 'user', `${SERVICE_NAME}.service`);
    case 'launchd':
      return join(homeOf(env), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
    case 'pm2':
      return join(configDir(env), `${SERVICE_NAME}.config.cjs`);
  }
}

/** launchd has no journal: the daemon's output goes where Console.app shows a user's logs. */
export function launchdLogFile(env: Env = process.env): string {
  return join(homeOf(env), 'Library', 'Logs', `${SERVICE_NAME}.log`);
}
