/**
 * The project's own check, named from the files at its root: what a
 * reminder to verify asks the agent to run. Pure: the caller reads the
 * files (supervisor/project-files.ts) and hands their text in.
 */

/** The root files a check is named from, in the order they are asked. */
export const CHECK_FILES = ['package.json', 'Makefile', 'makefile', 'GNUmakefile', 'Cargo.toml', 'go.mod', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'pytest.ini'] as const;

export type CheckFile = (typeof CHECK_FILES)[number];

/** The text of each check file that exists at the project's root. */
export type ProjectFiles = Partial<Record<CheckFile, string>>;

/** npm scripts that check, the strongest first: tests prove behaviour, a type check or a lint only shape. */
const NPM_SCRIPTS = ['test', 'check', 'typecheck', 'lint'] as const;
/** What `npm init` writes for a project with no tests. */
const NPM_PLACEHOLDER = /no test specified/i;

/** The command that checks the project (`npm test`, `make test`, `pytest`…), or null when its files name none. */
export function projectCheck(files: ProjectFiles): string | null {
  return npmCheck(files['package.json']) ?? makeCheck(files) ?? otherCheck(files);
}

function npmCheck(text: string | undefined): string | null {
  if (text === undefined) return null;
  let scripts: unknown;
  try {
    scripts = (JSON.parse(text) as { scripts?: unknown })?.scripts;
  } catch {
    return null;
  }
  if (typeof scripts !== 'object' || scripts === null) return null;
  const has = (name: string) => {
    const body = (scripts as Record<string, unknown>)[name];
    return typeof body === 'string' && body.trim() !== '' && !NPM_PLACEHOLDER.test(body);
  };
  const name = NPM_SCRIPTS.find(has);
  if (name === undefined) return null;
  return name === 'test' ? 'npm test' : `npm run ${name}`;
}

function makeCheck(files: ProjectFiles): string | null {
  const text = files.GNUmakefile ?? files.Makefile ?? files.makefile;
  if (text === undefined) return null;
  const target = ['test', 'check'].find((t) => new RegExp(`^${t}\\s*:(?!=)`, 'm').test(text));
  return target ? `make ${target}` : null;
}

function otherCheck(files: ProjectFiles): string | null {
  if (files['Cargo.toml'] !== undefined) return 'cargo test';
  if (files['go.mod'] !== undefined) return 'go test ./...';
  if (files['pyproject.toml'] !== undefined || files['setup.cfg'] !== undefined || files['tox.ini'] !== undefined || files['pytest.ini'] !== undefined) return 'pytest';
  return null;
}
