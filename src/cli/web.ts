/** `nightshift web token|revoke|list` — who may use the web view (`daemon --http`), and their tokens. */
import type { Command } from 'commander';
import type { CommandResult } from '../api/commands.js';
import { checkInput as parse, personNameSchema, webRoleSchema } from '../people/auth-input.js';
import { addStateFlag, ago, callDaemon, currentUser, printJson, type StateFlag } from './daemon-client.js';

export function registerWeb(program: Command): void {
  const web = addStateFlag(program.command('web').description('people and tokens of the web view (nightshift daemon --http)'));
  // `web --state DIR token …` as well as `web token … --state DIR`: the group's flag is the fallback.
  const at = (f: StateFlag): StateFlag => ({ state: f.state ?? (web.opts() as StateFlag).state });
  addStateFlag(
    web
      .command('token')
      .description('make a token for NAME (replacing an old one) and a single-use login URL valid 10 min')
      .argument('<name>', 'the person: letters, digits, . _ -')
      .option('--role <role>', 'viewer (read only) or operator (may answer, send, cancel)', 'operator')
      .option('--json', 'one JSON document: {name, token, login_url, role}'),
  ).action(async (name: string, f: StateFlag & { role: string; json?: boolean }) => {
    // Checked here too, so a typo is one line naming the value before the daemon is asked.
    const args = { name: parse(personNameSchema, name), role: parse(webRoleSchema, f.role), who: currentUser() };
    const r = await callDaemon(at(f), 'web-token', args);
    if (f.json) return printJson(r);
    process.stdout.write(formatToken(r));
  });
  addStateFlag(web.command('revoke').description('take NAME\'s token back: its sessions and login URLs end too (for a page person with no token: its sessions and page links)').argument('<name>', 'the person')).action(
    async (name: string, f: StateFlag) => {
      const r = await callDaemon(at(f), 'web-revoke', { name: parse(personNameSchema, name), who: currentUser() });
      process.stdout.write(formatRevoked(r));
    },
  );
  addStateFlag(web.command('list').description('every person with a token: role, created, last used, revoked').option('--json', 'one JSON document')).action(
    async (f: StateFlag & { json?: boolean }) => {
      const r = await callDaemon(at(f), 'web-list', { who: currentUser() });
      if (f.json) return printJson(r);
      process.stdout.write(formatPeople(r.people));
    },
  );
}

function formatToken(r: CommandResult<'web-token'>): string {
  const out = [`token for ${r.name} (${r.role}); it is shown only this once:`, `  ${r.token}`];
  if (r.login_url) out.push('login URL (works once, for 10 minutes):', `  ${r.login_url}`);
  else out.push('no login URL: the daemon has no web address; start it with --http HOST:PORT or set notify.public_url in config.yaml');
  return `${out.join('\n')}\n`;
}

/** A page person (no token) says what ended, and that their page links stay refused. */
function formatRevoked(r: CommandResult<'web-revoke'>): string {
  if (r.token) return `revoked ${r.name}\n`;
  const ended = `${plural(r.sessions, 'session')} and ${plural(r.codes, 'unused code')}`;
  return `revoked ${r.name} (no token): ended ${ended}; page links for ${r.name} are refused until: nightshift web token ${r.name}\n`;
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

function formatPeople(people: CommandResult<'web-list'>['people']): string {
  if (people.length === 0) return 'no web tokens; make one with: nightshift web token NAME\n';
  const rows = people.map((p) => [p.name, p.role, `${ago(p.created)} ago`, p.last_used ? `${ago(p.last_used)} ago` : 'never', p.revoked ? `revoked ${ago(p.revoked)} ago` : 'active']);
  const head = ['NAME', 'ROLE', 'CREATED', 'LAST USED', 'STATUS'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}
