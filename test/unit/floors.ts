/**
 * Which src/ folders each src/ folder may import, floor by floor from the bottom. A folder may
 * always import its own files. test/unit/layering.test.ts checks every src/** import against it
 * and checks the table itself has no circle, so no folder can reach one above it.
 */
export const FLOORS: Record<string, readonly string[]> = {
  // Floor 0: plain helpers with no idea of jobs or agents.
  util: [],
  // Floor 1: the deterministic core; util/errors.ts only (the core test says which file).
  core: ['util'],
  // Floor 2: leaves that read, record or describe, each on the core's vocabulary.
  record: ['util'],
  screen: ['core', 'util'],
  events: ['core', 'util'],
  board: ['core', 'util'],
  responder: ['core', 'util'],
  service: ['util'],
  // Adapters read agents' own transcripts into core events.
  adapters: ['core', 'events', 'util'],
  // Rules carry the responder's policy.
  rules: ['core', 'responder', 'util'],
  // Probes and notify read their YAML files through rules/yaml-source.ts.
  probes: ['core', 'rules', 'util'],
  notify: ['core', 'rules', 'util'],
  // Floor 3: what runs one agent. pty names agents' processes with the adapters' types.
  pty: ['adapters', 'core', 'util'],
  agents: ['core', 'probes', 'util'],
  signals: ['adapters', 'core', 'events', 'util'],
  ptyhost: ['pty', 'record', 'util'],
  supervisor: [
    'adapters', 'agents', 'board', 'core', 'events', 'notify', 'probes',
    'pty', 'record', 'responder', 'rules', 'screen', 'signals', 'util',
  ],
  drill: ['agents', 'core', 'probes', 'record', 'responder', 'rules', 'screen', 'supervisor', 'util'],
  // Floor 4: the command contract the daemon serves and the web and fleet speak.
  api: ['board', 'core', 'notify', 'rules', 'supervisor', 'util'],
  // Floor 5: the daemon owns jobs and composes the fleet link; the web serves on top of it.
  fleet: ['api', 'board', 'core', 'notify', 'util'],
  daemon: [
    'adapters', 'api', 'board', 'core', 'events', 'fleet', 'notify', 'pty',
    'ptyhost', 'rules', 'supervisor', 'util',
  ],
  web: ['api', 'board', 'core', 'daemon', 'notify', 'util'],
  // Floor 6: the command line may use anything.
  cli: [
    'adapters', 'api', 'board', 'core', 'daemon', 'drill', 'events', 'fleet', 'notify', 'probes',
    'pty', 'ptyhost', 'record', 'responder', 'rules', 'service', 'supervisor', 'util', 'web',
  ],
};
