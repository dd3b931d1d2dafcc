/**
 * Which src/ folders each src/ folder may import, floor by floor from the bottom. A folder may
 * always import its own files. test/unit/layering.test.ts checks every src/** import against it
 * and checks the table itself has no circle, so no folder can reach one above it.
 * An edge is here because code uses it today; the comment says why that is sound.
 */
export const FLOORS: Record<string, readonly string[]> = {
  // Floor 0: plain helpers (errors, files, timers, workers) with no idea of jobs or agents.
  util: [],
  // Floor 1: the deterministic core; util/errors.ts only (the core test says which file).
  core: ['util'],

  // Floor 2: leaves that read, record or describe, each on the core's vocabulary.
  record: ['util'],
  screen: ['core', 'util'],
  events: ['core', 'util'],
  // The board stores the core's outcomes and task states.
  board: ['core', 'util'],
  responder: ['core', 'util'],
  service: ['util'],
  // Adapters read agents' own transcripts and event files into core events.
  adapters: ['core', 'events', 'util'],
  // Rules carry the responder's policy.
  rules: ['core', 'responder', 'util'],
  // Probes and notify read their YAML files through rules/yaml-source.ts; notify's pages and
  // redaction are about board jobs (their records and their secrets).
  probes: ['core', 'rules', 'util'],
  notify: ['board', 'core', 'rules', 'util'],

  // Floor 3: what runs one agent.
  // pty names an agent's process with the adapters' types.
  pty: ['adapters', 'core', 'util'],
  // The agent monitor runs the probes over an agent's events.
  agents: ['core', 'probes', 'util'],
  // Hooks and notify scripts speak the adapters' event formats.
  signals: ['adapters', 'core', 'events', 'util'],
  // The PTY host owns PTYs and their recordings, and nothing of the daemon.
  ptyhost: ['pty', 'record', 'util'],
  // A job: its PTY, screen, watchdog, agent watchers, rules and answers, records (board types,
  // notify's redaction of secrets) and the signals it wires into its agent.
  supervisor: [
    'adapters', 'agents', 'board', 'core', 'events', 'notify', 'probes',
    'pty', 'record', 'responder', 'rules', 'screen', 'signals', 'util',
  ],
  // Drills replay recorded jobs through the same pieces a live job uses.
  drill: ['agents', 'core', 'probes', 'record', 'responder', 'rules', 'screen', 'supervisor', 'util'],

  // People, their tokens, codes and sessions, kept in the board's SQLite file.
  people: ['board', 'util'],

  // Floor 4: the command contract the daemon serves and the web and fleet speak; its roles are
  // people's roles.
  api: ['board', 'core', 'notify', 'people', 'rules', 'supervisor', 'util'],

  // Floor 5: transports over the contract: they see the daemon only through api's ports.
  fleet: ['api', 'board', 'core', 'notify', 'util'],
  web: ['api', 'board', 'core', 'notify', 'people', 'util'],

  // Floor 6: the daemon, the one composition root: it owns jobs, the board, the pager and the PTY
  // host link, and starts the web view and the fleet link on its own port.
  daemon: [
    'adapters', 'api', 'board', 'core', 'events', 'fleet', 'notify', 'people', 'pty',
    'ptyhost', 'rules', 'supervisor', 'util', 'web',
  ],

  // Floor 7: the command line may use anything.
  cli: [
    'adapters', 'api', 'board', 'core', 'daemon', 'drill', 'events', 'fleet', 'notify', 'people', 'probes',
    'pty', 'ptyhost', 'record', 'responder', 'rules', 'service', 'supervisor', 'util', 'web',
  ],
};
