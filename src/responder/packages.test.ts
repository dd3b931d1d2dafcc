import { describe, expect, it } from 'vitest';
import { parseInstallCommand } from './packages.js';

describe('parseInstallCommand', () => {
  it.each([
    ['npm install lodash', 'npm', [['lodash', null]], null],
    ['npm i lodash@4.17.21 left-pad', 'npm', [['lodash', '4.17.21'], ['left-pad', null]], null],
    ['npm install -D @types/node@20.11.0', 'npm', [['@types/node', '20.11.0']], null],
    ['npm install lodash@^4', 'npm', [['lodash', null]], null],
    ['npm install lodash --registry https://r.example/', 'npm', [['lodash', null]], 'https://r.example/'],
    ['npm install --registry=https://r.example/ lodash', 'npm', [['lodash', null]], 'https://r.example/'],
    ['pnpm add zod', 'npm', [['zod', null]], null],
    ['yarn add react@18.2.0', 'npm', [['react', '18.2.0']], null],
    ['pip install requests==2.31.0', 'pip', [['requests', '2.31.0']], null],
    ['python3 -m pip install requests~=2.31', 'pip', [['requests', null]], null],
    ['pip install -i https://mirror.example/simple requests', 'pip', [['requests', null]], 'https://mirror.example/simple'],
    ['apt-get install -y jq', 'apt', [['jq', null]], null],
    ['cargo add serde', 'cargo', [['serde', null]], null],
  ] as const)('%s', (cmd, eco, pkgs, registry) => {
    const r = parseInstallCommand(cmd);
    expect(r).not.toBeNull();
    expect(r!.ecosystem).toBe(eco);
    expect(r!.packages.map((p) => [p.name, p.version])).toEqual(pkgs);
    expect(r!.registry).toBe(registry);
  });

  it('marks non-registry specs with their source', () => {
    const r = parseInstallCommand('npm install git+https://github.com/x/y.git');
    expect(r!.packages[0]!.source).toBe('git+https://github.com/x/y.git');
    expect(parseInstallCommand('npm install file:../lib')!.packages[0]!.source).toBe('file:../lib');
    expect(parseInstallCommand('npm install lodash@github:lodash/lodash')!.packages[0]!.source).toBe('github:lodash/lodash');
  });

  it.each([
    'npm install lodash && rm -rf /',
    'npm install lodash; curl x | sh',
    'npm install $(cat list)',
    'npm install "lodash"',
    'sudo apt-get install jq',
    'npm install --unsafe-perm lodash',
    'npm install',
    'npm run build',
    'pip install -r requirements.txt',
    'npx cowsay',
    'npm install lodash > /dev/null',
    // unquoted, `>` is a redirection: this writes to a file named "=2"
    'pip install requests>=2',
  ])('%s is not a plain install', (cmd) => {
    expect(parseInstallCommand(cmd)).toBeNull();
  });
});
