import { describe, expect, it } from 'vitest';
import { COMMAND_LIST } from '../api/commands.js';
import type { FleetDb } from './db.js';
import { callFleet, FLEET_COMMANDS } from './route.js';

/** A board that is never reached: any use is an error that says so. */
const unreached = new Proxy({} as FleetDb, {
  get: () => {
    throw new Error('went to the fleet board');
  },
});

const refusal = async (cmd: string): Promise<string> => {
  try {
    await callFleet(unreached, cmd, { job: 'j1', spec: {} });
    return 'answered';
  } catch (e) {
    return (e as Error).message;
  }
};

describe("the fleet's routing is its records'", () => {
  it.each(COMMAND_LIST.map((c) => [c.name, c.fleet] as const))('%s (%s) goes where its record says', async (name, route) => {
    const said = await refusal(name);
    if (route === 'daemon') expect(said).toMatch(/talks to one daemon, not the fleet board/);
    else expect(said).not.toMatch(/talks to one daemon/);
    expect(FLEET_COMMANDS.has(name)).toBe(route === 'board' || route === 'owner');
  });
});
