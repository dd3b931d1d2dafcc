import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configDir, defaultStateDir, findConfig, findPolicy } from './home.js';

const root = mkdtempSync(join(tmpdir(), 'ns-home-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('defaultStateDir', () => {
  it('NIGHTSHIFT_STATE wins, made absolute', () => {
    expect(defaultStateDir({ NIGHTSHIFT_STATE: '/srv/ns', XDG_STATE_HOME: '/x', HOME: '/home/a' })).toBe('/srv/ns');
    expect(defaultStateDir({ NIGHTSHIFT_STATE: 'rel', HOME: '/home/a' })).toBe(join(process.cwd(), 'rel'));
  });

  it('else $XDG_STATE_HOME/nightshift, else ~/.local/state/nightshift; never ./state', () => {
    expect(defaultStateDir({ XDG_STATE_HOME: '/xdg/state', HOME: '/home/a' })).toBe('/xdg/state/nightshift');
    expect(defaultStateDir({ HOME: '/home/a' })).toBe('/home/a/.local/state/nightshift');
  });

  it('a relative or empty XDG_STATE_HOME is ignored, as the XDG spec says', () => {
    expect(defaultStateDir({ XDG_STATE_HOME: 'state', HOME: '/home/a' })).toBe('/home/a/.local/state/nightshift');
    expect(defaultStateDir({ XDG_STATE_HOME: '', HOME: '/home/a' })).toBe('/home/a/.local/state/nightshift');
  });
});

describe('configDir', () => {
  it('$XDG_CONFIG_HOME/nightshift, else ~/.config/nightshift', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg/config', HOME: '/home/a' })).toBe('/xdg/config/nightshift');
    expect(configDir({ HOME: '/home/a' })).toBe('/home/a/.config/nightshift');
  });
});

describe('findConfig and findPolicy', () => {
  const state = join(root, 'state');
  const env = { XDG_CONFIG_HOME: join(root, 'config'), HOME: join(root, 'home') };
  const inConfig = join(root, 'config', 'nightshift');
  mkdirSync(state, { recursive: true });
  mkdirSync(inConfig, { recursive: true });

  it('none found: null, and both places named in order', () => {
    expect(findConfig(state, env)).toEqual({ file: null, looked: [join(state, 'config.yaml'), join(inConfig, 'config.yaml')] });
    expect(findPolicy(state, env)).toEqual({ file: null, looked: [join(state, 'policy.yaml'), join(inConfig, 'policy.yaml')] });
  });

  it('the config folder\'s file when the state folder has none; the state folder\'s wins', () => {
    writeFileSync(join(inConfig, 'config.yaml'), 'notify: {}\n');
    writeFileSync(join(inConfig, 'policy.yaml'), 'allow: []\n');
    expect(findConfig(state, env).file).toBe(join(inConfig, 'config.yaml'));
    expect(findPolicy(state, env).file).toBe(join(inConfig, 'policy.yaml'));
    writeFileSync(join(state, 'config.yaml'), 'notify: {}\n');
    expect(findConfig(state, env).file).toBe(join(state, 'config.yaml'));
    expect(findPolicy(state, env).file).toBe(join(inConfig, 'policy.yaml'));
  });
});
