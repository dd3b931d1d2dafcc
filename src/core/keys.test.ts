import { describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { KEY_NAMES, keySequence } from './keys.js';

describe('keySequence', () => {
  it('maps named keys to terminal bytes', () => {
    expect(keySequence('enter')).toBe('\r');
    expect(keySequence('return')).toBe('\r');
    expect(keySequence('esc')).toBe('\x1b');
    expect(keySequence('Escape')).toBe('\x1b');
    expect(keySequence('tab')).toBe('\t');
    expect(keySequence('shift-tab')).toBe('\x1b[Z');
    expect(keySequence('backspace')).toBe('\x7f');
    expect(keySequence('delete')).toBe('\x1b[3~');
    expect(keySequence('UP')).toBe('\x1b[A');
    expect(keySequence('left')).toBe('\x1b[D');
    expect(keySequence('pagedown')).toBe('\x1b[6~');
    expect(keySequence('space')).toBe(' ');
    expect(keySequence('f1')).toBe('\x1bOP');
    expect(keySequence('F12')).toBe('\x1b[24~');
  });

  it('maps control keys', () => {
    expect(keySequence('ctrl-a')).toBe('\x01');
    expect(keySequence('ctrl-c')).toBe('\x03');
    expect(keySequence('Ctrl-D')).toBe('\x04');
    expect(keySequence('ctrl+z')).toBe('\x1a');
    expect(keySequence('ctrl-backslash')).toBe('\x1c');
  });

  it('passes single letters and digits through, case kept', () => {
    expect(keySequence('y')).toBe('y');
    expect(keySequence('Y')).toBe('Y');
    expect(keySequence('1')).toBe('1');
  });

  it('rejects unknown keys with the list of known ones', () => {
    expect(() => keySequence('foo')).toThrow(InputError);
    expect(() => keySequence('foo')).toThrow(/^unknown key "foo"; expected one of: enter, return, escape/);
    expect(() => keySequence('ctrl-1')).toThrow(InputError);
    expect(() => keySequence('')).toThrow(InputError);
  });

  it('lists every name it accepts', () => {
    for (const name of KEY_NAMES) expect(() => keySequence(name)).not.toThrow();
    expect(KEY_NAMES).toContain('ctrl-c');
    expect(KEY_NAMES).toContain('f12');
  });
});
