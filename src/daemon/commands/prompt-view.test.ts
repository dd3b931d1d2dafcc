import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { subjectOf } from './prompt-view.js';

const screen = (name: string) => readFileSync(new URL(`../../../test/fixtures/screens/${name}`, import.meta.url), 'utf8');

describe('subjectOf: what a person approves, from the prompt the daemon read', () => {
  it('is the command the rule read, first', () => {
    expect(subjectOf('rm -rf ./build', 'Do you want to proceed? https://example.com')).toEqual({ kind: 'command', text: 'rm -rf ./build' });
  });

  it('is the file a dialog names', () => {
    expect(subjectOf(null, screen('cursor-synthetic-write-file.txt'))).toEqual({ kind: 'file', text: 'src/probe.txt' });
    expect(subjectOf(null, ' Edit file\n   src/app.ts\n Do you want to make this edit to app.ts?\n ❯ 1. Yes')).toEqual({ kind: 'file', text: 'app.ts' });
    expect(subjectOf(null, ' Edit file\n\n   src/app.ts\n Do you want to proceed?')).toEqual({ kind: 'file', text: 'src/app.ts' });
  });

  it('is the address a fetch asks for', () => {
    expect(subjectOf(null, ' Fetch\n   https://example.com/docs?page=2\n Do you want to allow this fetch?')).toEqual({ kind: 'url', text: 'https://example.com/docs?page=2' });
  });

  it('is nothing for a plain question', () => {
    expect(subjectOf(null, 'Delete the cache? [y/N]')).toBeNull();
  });
});
